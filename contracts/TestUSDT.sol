// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import "@openzeppelin/contracts/access/Ownable.sol";

/// USDT stand-in for the local chains: an ERC-20 with 6 decimals; the deployer (the dev faucet) mints.
contract TestUSDT is ERC20, Ownable {
    constructor(address minter) ERC20("Tether USD (local)", "USDT") Ownable(minter) {}

    function decimals() public pure override returns (uint8) {
        return 6;
    }

    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }
}
