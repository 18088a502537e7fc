// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/**
 * USDT stand-in for the local chains, behaving as Tether's mainnet contract (TetherToken, 0xdAC17F958D2ee523a2206206994597C13D831ec7)
 * does where it surprises ERC-20 callers: `transfer`, `transferFrom` and `approve` return nothing (no bool), and
 * `approve` reverts when it would change one non-zero allowance to another (set it to zero first). 6 decimals; the
 * deployer (the dev faucet) mints. Callers must use SafeERC20 / TransferHelper-style calls, as they must with Tether.
 */
contract TestUSDT {
    string public constant name = "Tether USD (local)";
    string public constant symbol = "USDT";
    uint8 public constant decimals = 6;
    uint256 public totalSupply;
    address public immutable minter;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor(address minter_) {
        minter = minter_;
    }

    function mint(address to, uint256 amount) external {
        require(msg.sender == minter, "USDT: only the minter");
        totalSupply += amount;
        balanceOf[to] += amount;
        emit Transfer(address(0), to, amount);
    }

    function transfer(address to, uint256 value) external {
        _move(msg.sender, to, value);
    }

    function transferFrom(address from, address to, uint256 value) external {
        uint256 allowed = allowance[from][msg.sender];
        require(allowed >= value, "USDT: allowance");
        if (allowed != type(uint256).max) allowance[from][msg.sender] = allowed - value;
        _move(from, to, value);
    }

    /// As Tether: "To change the approve amount you first have to reduce the addresses' allowance to zero".
    function approve(address spender, uint256 value) external {
        require(!((value != 0) && (allowance[msg.sender][spender] != 0)), "USDT: reset the allowance to zero first");
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
    }

    function _move(address from, address to, uint256 value) internal {
        require(to != address(0), "USDT: to the zero address");
        require(balanceOf[from] >= value, "USDT: balance");
        balanceOf[from] -= value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}
