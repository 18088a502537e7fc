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
 *   0x02 || ecdsa(65)                                  transfer-signer signature over the EIP-712 userOpHash
 *
 * The transfer signer is a key the owner authorizes (setTransferSigner, through a user operation) so the service can
 * send transfers the user confirmed with their PIN. Its limits, enforced here during validation:
 *   - the call must be execute(dest, value, func) with dest != the account itself, and func either empty (a plain
 *     coin transfer of `value`) or exactly ERC-20 transfer(address,uint256) with value 0;
 *   - so it can never change the owner or the signer, upgrade the account, approve allowances or call anything else;
 *   - it expires at transferSignerValidUntil (0 = no expiry), and the owner can replace or remove it at any time.
 */
contract WalletAccount is SimpleAccount {
    bytes1 internal constant SIGNATURE_SINGLE = 0x00;
    bytes1 internal constant SIGNATURE_MERKLE = 0x01;
    bytes32 internal constant DOMAIN_TYPEHASH = keccak256("EIP712Domain(string name,string version)");
    bytes32 internal constant MERKLE_ROOT_TYPEHASH = keccak256("UserOperationMerkleRoot(bytes32 root)");
    bytes1 internal constant SIGNATURE_TRANSFER = 0x02;
    bytes4 internal constant ERC20_TRANSFER = 0xa9059cbb; // transfer(address,uint256)

    address public transferSigner;
    uint48 public transferSignerValidUntil;

    event OwnerChanged(address indexed previousOwner, address indexed newOwner);
    event TransferSignerChanged(address indexed signer, uint48 validUntil);

    constructor(IEntryPoint anEntryPoint) SimpleAccount(anEntryPoint) {}

    /// Replace the owner key. Through a user operation (msg.sender == this) or directly by the current owner.
    function changeOwner(address newOwner) external onlyOwner {
        require(newOwner != address(0), "owner: zero address");
        emit OwnerChanged(owner, newOwner);
        owner = newOwner;
    }

    /// Authorize (or, with address(0), remove) the key that may sign plain transfers. Owner only.
    function setTransferSigner(address signer, uint48 validUntil) external onlyOwner {
        transferSigner = signer;
        transferSignerValidUntil = validUntil;
        emit TransferSignerChanged(signer, validUntil);
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
        if (signature[0] == SIGNATURE_TRANSFER) {
            if (transferSigner == address(0) || !_isTransferCall(userOp.callData)) return SIG_VALIDATION_FAILED;
            (address recovered, ECDSA.RecoverError error,) = ECDSA.tryRecover(userOpHash, signature[1:]);
            if (error != ECDSA.RecoverError.NoError || recovered != transferSigner) return SIG_VALIDATION_FAILED;
            return _packValidationData(false, transferSignerValidUntil, 0);
        }
        return SIG_VALIDATION_FAILED;
    }

    /// execute(dest, value, "") or execute(token, 0, transfer(to, amount)), never to the account itself.
    function _isTransferCall(bytes calldata callData) internal view returns (bool) {
        if (callData.length < 4 || bytes4(callData[:4]) != this.execute.selector) return false;
        (address dest, uint256 value, bytes memory func) = abi.decode(callData[4:], (address, uint256, bytes));
        if (dest == address(this)) return false;
        if (func.length == 0) return true;
        if (value != 0 || func.length != 68) return false;
        return bytes4(func) == ERC20_TRANSFER;
    }

    function _isOwner(bytes32 digest, bytes memory signature) internal view returns (bool) {
        (address recovered, ECDSA.RecoverError error,) = ECDSA.tryRecover(digest, signature);
        return error == ECDSA.RecoverError.NoError && recovered == owner;
    }
}
