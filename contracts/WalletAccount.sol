// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import "@account-abstraction/contracts/accounts/SimpleAccount.sol";
import "@openzeppelin/contracts/utils/cryptography/MerkleProof.sol";

/**
 * The user's ERC-4337 smart account: SimpleAccount (owner key, EntryPoint v0.8, UUPS) plus
 *  - owner rotation, callable only through the account itself (a user operation) or by the owner;
 *  - a second signature mode in which one owner signature over a merkle root authorizes several user operations,
 *    one per network, so the user signs once for all networks.
 *
 * userOp.signature layouts:
 *   0x00 || ecdsa(65)                                  owner signature over the EIP-712 userOpHash
 *   0x01 || abi.encode(bytes32 root, bytes32[] proof, bytes ecdsa)
 *        owner signature over the EIP-712 digest of UserOperationMerkleRoot(root) in the chain-free domain
 *        {name: "ERC4337", version: "1"}, and proof that leaf(userOpHash) is in the tree, where
 *        leaf(h) = keccak256(bytes.concat(keccak256(abi.encode(h)))) (OpenZeppelin StandardMerkleTree, type bytes32).
 */
contract WalletAccount is SimpleAccount {
    bytes1 internal constant SIGNATURE_SINGLE = 0x00;
    bytes1 internal constant SIGNATURE_MERKLE = 0x01;
    bytes32 internal constant DOMAIN_TYPEHASH = keccak256("EIP712Domain(string name,string version)");
    bytes32 internal constant MERKLE_ROOT_TYPEHASH = keccak256("UserOperationMerkleRoot(bytes32 root)");

    event OwnerChanged(address indexed previousOwner, address indexed newOwner);

    constructor(IEntryPoint anEntryPoint) SimpleAccount(anEntryPoint) {}

    /// Replace the owner key. Through a user operation (msg.sender == this) or directly by the current owner.
    function changeOwner(address newOwner) external onlyOwner {
        require(newOwner != address(0), "owner: zero address");
        emit OwnerChanged(owner, newOwner);
        owner = newOwner;
    }

    /// The digest the owner signs in merkle mode (eth_signTypedData_v4 of UserOperationMerkleRoot).
    function merkleRootDigest(bytes32 root) public pure returns (bytes32) {
        bytes32 domainSeparator = keccak256(abi.encode(DOMAIN_TYPEHASH, keccak256("ERC4337"), keccak256("1")));
        return MessageHashUtils.toTypedDataHash(domainSeparator, keccak256(abi.encode(MERKLE_ROOT_TYPEHASH, root)));
    }

    function _validateSignature(PackedUserOperation calldata userOp, bytes32 userOpHash)
    internal view override returns (uint256 validationData) {
        bytes calldata signature = userOp.signature;
        if (signature.length < 1) return SIG_VALIDATION_FAILED;
        if (signature[0] == SIGNATURE_SINGLE) {
            return _isOwner(userOpHash, signature[1:]) ? SIG_VALIDATION_SUCCESS : SIG_VALIDATION_FAILED;
        }
        if (signature[0] == SIGNATURE_MERKLE) {
            (bytes32 root, bytes32[] memory proof, bytes memory ownerSignature) = abi.decode(signature[1:], (bytes32, bytes32[], bytes));
            bytes32 leaf = keccak256(bytes.concat(keccak256(abi.encode(userOpHash))));
            if (!MerkleProof.verify(proof, root, leaf)) return SIG_VALIDATION_FAILED;
            return _isOwner(merkleRootDigest(root), ownerSignature) ? SIG_VALIDATION_SUCCESS : SIG_VALIDATION_FAILED;
        }
        return SIG_VALIDATION_FAILED;
    }

    function _isOwner(bytes32 digest, bytes memory signature) internal view returns (bool) {
        (address recovered, ECDSA.RecoverError error,) = ECDSA.tryRecover(digest, signature);
        return error == ECDSA.RecoverError.NoError && recovered == owner;
    }
}
