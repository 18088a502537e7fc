// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import "@openzeppelin/contracts/utils/Create2.sol";
import "@openzeppelin/contracts/proxy/ERC1967/ERC1967Proxy.sol";
import "@account-abstraction/contracts/interfaces/ISenderCreator.sol";
import "./WalletAccount.sol";

/**
 * Deploys WalletAccount proxies at counterfactual CREATE2 addresses (owner, salt), as SimpleAccountFactory does.
 * Only the EntryPoint's SenderCreator may create accounts, so an account appears only through a user operation.
 */
contract WalletAccountFactory {
    WalletAccount public immutable accountImplementation;
    ISenderCreator public immutable senderCreator;

    constructor(IEntryPoint entryPoint) {
        accountImplementation = new WalletAccount(entryPoint);
        senderCreator = entryPoint.senderCreator();
    }

    function createAccount(address owner, uint256 salt) public returns (WalletAccount account) {
        require(msg.sender == address(senderCreator), "only callable from SenderCreator");
        address addr = getAddress(owner, salt);
        if (addr.code.length > 0) return WalletAccount(payable(addr));
        account = WalletAccount(payable(new ERC1967Proxy{salt: bytes32(salt)}(
            address(accountImplementation), abi.encodeCall(SimpleAccount.initialize, (owner))
        )));
    }

    function getAddress(address owner, uint256 salt) public view returns (address) {
        return Create2.computeAddress(bytes32(salt), keccak256(abi.encodePacked(
            type(ERC1967Proxy).creationCode,
            abi.encode(address(accountImplementation), abi.encodeCall(SimpleAccount.initialize, (owner)))
        )));
    }
}
