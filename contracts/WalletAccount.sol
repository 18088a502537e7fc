// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import "@account-abstraction/contracts/accounts/SimpleAccount.sol";
import "@openzeppelin/contracts/utils/cryptography/MerkleProof.sol";
import "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

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
 * The transfer signer is a key the owner authorizes (configureTransferSigner, through a user operation) so the
 * service can send transfers the user confirmed with their PIN. Bounded here, so a leaked server key cannot empty the
 * account:
 *   - its only call is transferWithinCap(token, to, amount) (validated), never to the account itself, so it can never
 *     change the owner or the signer, upgrade the account, approve allowances or call anything else;
 *   - its operations name a paymaster, which pays their gas: the account prefunds nothing, so gas and fees the signer
 *     chooses cannot move the account's coin to whoever bundles them;
 *   - each token (address(0): the coin) has a daily cap per Korean day (00:00 KST, 15:00 UTC), counted when the transfer executes; a token
 *     without a cap cannot be sent by it at all;
 *   - it expires at transferSignerValidUntil (the EntryPoint refuses it after), and the owner can replace, renew or
 *     remove it, and change any cap, at any time.
 */
contract WalletAccount is SimpleAccount {
    bytes1 internal constant SIGNATURE_SINGLE = 0x00;
    bytes1 internal constant SIGNATURE_MERKLE = 0x01;
    bytes32 internal constant DOMAIN_TYPEHASH = keccak256("EIP712Domain(string name,string version)");
    bytes32 internal constant MERKLE_ROOT_TYPEHASH = keccak256("UserOperationMerkleRoot(bytes32 root)");
    bytes1 internal constant SIGNATURE_TRANSFER = 0x02;

    address public transferSigner;
    uint48 public transferSignerValidUntil;

    /// What the transfer signer may send of a token per Korean day (00:00 KST, 15:00 UTC), and what it sent on `day`:
    /// one storage slot, so a transfer reads and writes one (uint96 holds 79 billion coins of 18 decimals).
    struct TransferAllowance { uint96 dailyCap; uint96 spent; uint64 day; }
    mapping(address token => TransferAllowance) public transferAllowances;

    event OwnerChanged(address indexed previousOwner, address indexed newOwner);
    event TransferSignerChanged(address indexed signer, uint48 validUntil);
    event TransferCapChanged(address indexed token, uint128 dailyCap);

    constructor(IEntryPoint anEntryPoint) SimpleAccount(anEntryPoint) {}

    /// Replace the owner key. Through a user operation (msg.sender == this) or directly by the current owner.
    function changeOwner(address newOwner) external onlyOwner {
        require(newOwner != address(0), "owner: zero address");
        emit OwnerChanged(owner, newOwner);
        owner = newOwner;
    }

    /// Authorize (or, with address(0), remove) the key that may sign capped transfers, until `validUntil`. Owner only.
    function setTransferSigner(address signer, uint48 validUntil) public onlyOwner {
        transferSigner = signer;
        transferSignerValidUntil = validUntil;
        emit TransferSignerChanged(signer, validUntil);
    }

    /// The most the transfer signer may send of `token` (address(0): the coin) per Korean day (00:00 KST, 15:00 UTC); 0 stops it. Owner only.
    function setTransferCap(address token, uint128 dailyCap) public onlyOwner {
        require(dailyCap <= type(uint96).max, "transfer: cap too large");
        transferAllowances[token].dailyCap = uint96(dailyCap);
        emit TransferCapChanged(token, dailyCap);
    }

    /// The signer, its expiry and its caps in one owner call (the deploy operation makes it).
    function configureTransferSigner(address signer, uint48 validUntil, address[] calldata tokens, uint128[] calldata caps)
    external onlyOwner {
        require(tokens.length == caps.length, "transfer: caps do not match tokens");
        setTransferSigner(signer, validUntil);
        for (uint256 i = 0; i < tokens.length; i++) setTransferCap(tokens[i], caps[i]);
    }

    /**
     * The one call a transfer-signer operation may make: `amount` of `token` (address(0): the coin) to `to`, refused
     * past the token's cap for the day. Only through the EntryPoint (an owner-signed operation may call it too).
     */
    function transferWithinCap(address token, address to, uint256 amount) external {
        _requireFromEntryPoint();
        require(to != address(this) && to != address(0), "transfer: bad recipient");
        TransferAllowance memory allowance = transferAllowances[token]; // one slot read, one written below
        uint64 today = uint64((block.timestamp + 9 hours) / 1 days); // the Korean day (from 00:00 KST), as the service's limits
        uint96 spent = allowance.day == today ? allowance.spent : 0;
        require(amount <= allowance.dailyCap && spent <= allowance.dailyCap - amount, "transfer: over the daily cap");
        transferAllowances[token] = TransferAllowance(allowance.dailyCap, spent + uint96(amount), today);
        if (token == address(0)) {
            (bool sent,) = payable(to).call{value: amount}("");
            require(sent, "transfer: coin not sent");
        } else {
            SafeERC20.safeTransfer(IERC20(token), to, amount);
        }
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
            // A paymaster pays, never the account: without one the account would prefund gas the signer prices, and
            // the EntryPoint would pay it to the bundler (the signer itself), past every daily cap.
            if (userOp.paymasterAndData.length < 20) return SIG_VALIDATION_FAILED;
            if (transferSigner == address(0) || !_isTransferCall(userOp.callData)) return SIG_VALIDATION_FAILED;
            (address recovered, ECDSA.RecoverError error,) = ECDSA.tryRecover(userOpHash, signature[1:]);
            if (error != ECDSA.RecoverError.NoError || recovered != transferSigner) return SIG_VALIDATION_FAILED;
            return _packValidationData(false, transferSignerValidUntil, 0);
        }
        return SIG_VALIDATION_FAILED;
    }

    /// transferWithinCap(token, to, amount) and nothing else, never to the account itself.
    function _isTransferCall(bytes calldata callData) internal view returns (bool) {
        if (callData.length != 4 + 3 * 32 || bytes4(callData[:4]) != this.transferWithinCap.selector) return false;
        (, address to,) = abi.decode(callData[4:], (address, address, uint256));
        return to != address(this);
    }

    function _isOwner(bytes32 digest, bytes memory signature) internal view returns (bool) {
        (address recovered, ECDSA.RecoverError error,) = ECDSA.tryRecover(digest, signature);
        return error == ECDSA.RecoverError.NoError && recovered == owner;
    }
}
