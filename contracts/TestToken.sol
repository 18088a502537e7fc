// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// A plain ERC-20 for the local chains' pools (USDC with 6 decimals, WBTC with 8); the deployer (the dev faucet) mints.
contract TestToken is ERC20 {
    uint8 private immutable tokenDecimals;
    address public immutable minter;

    constructor(string memory name_, string memory symbol_, uint8 decimals_, address minter_) ERC20(name_, symbol_) {
        tokenDecimals = decimals_;
        minter = minter_;
    }

    function decimals() public view override returns (uint8) {
        return tokenDecimals;
    }

    function mint(address to, uint256 amount) external {
        require(msg.sender == minter, "only the minter");
        _mint(to, amount);
    }
}
