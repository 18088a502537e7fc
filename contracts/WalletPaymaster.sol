// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import "@account-abstraction/contracts/core/BasePaymaster.sol";
import "@account-abstraction/contracts/core/Helpers.sol";
import "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";

/**
 * The service's verifying paymaster (EntryPoint v0.8): it pays for a user operation only when the service's sponsor
 * key signed that very operation, within a validity window. The service signs only after checking the user's gas
 * budget, so users never hold an EntryPoint deposit of their own and there is nothing of the service's to withdraw.
 *
 * paymasterAndData = paymaster(20) || verificationGasLimit(16) || postOpGasLimit(16)
 *                    || validUntil(6) || validAfter(6) || signature(65)
 * signature: EIP-191 personal-sign by sponsorSigner over getHash(userOp, validUntil, validAfter), which covers every
 * field of the operation but its signature and the paymaster signature itself, plus this chain and this paymaster.
 */
contract WalletPaymaster is BasePaymaster {
    uint256 private constant VALID_UNTIL_OFFSET = PAYMASTER_DATA_OFFSET;
    uint256 private constant VALID_AFTER_OFFSET = PAYMASTER_DATA_OFFSET + 6;
    uint256 private constant SIGNATURE_OFFSET = PAYMASTER_DATA_OFFSET + 12;

    address public sponsorSigner;

    event SponsorSignerChanged(address indexed previousSigner, address indexed newSigner);

    /// The owner (who can withdraw the deposit and change the signer) is named, not the deploying factory.
    constructor(IEntryPoint anEntryPoint, address owner_, address signer) BasePaymaster(anEntryPoint) {
        _transferOwnership(owner_);
        sponsorSigner = signer;
        emit SponsorSignerChanged(address(0), signer);
    }

    /// Rotate the sponsor key (a leaked or retired key stops being honoured at once).
    function setSponsorSigner(address signer) external onlyOwner {
        emit SponsorSignerChanged(sponsorSigner, signer);
        sponsorSigner = signer;
    }

    /// What the sponsor key signs for `userOp`: everything but the signatures, bound to this chain and paymaster.
    function getHash(PackedUserOperation calldata userOp, uint48 validUntil, uint48 validAfter) public view returns (bytes32) {
        return keccak256(abi.encode(
            userOp.sender, userOp.nonce, keccak256(userOp.initCode), keccak256(userOp.callData), userOp.accountGasLimits,
            uint256(bytes32(userOp.paymasterAndData[PAYMASTER_VALIDATION_GAS_OFFSET:PAYMASTER_DATA_OFFSET])),
            userOp.preVerificationGas, userOp.gasFees, block.chainid, address(this), validUntil, validAfter
        ));
    }

    function _validatePaymasterUserOp(PackedUserOperation calldata userOp, bytes32, uint256)
    internal view override returns (bytes memory context, uint256 validationData) {
        bytes calldata data = userOp.paymasterAndData;
        require(data.length == SIGNATURE_OFFSET + 65, "paymaster: bad data length");
        uint48 validUntil = uint48(bytes6(data[VALID_UNTIL_OFFSET:VALID_AFTER_OFFSET]));
        uint48 validAfter = uint48(bytes6(data[VALID_AFTER_OFFSET:SIGNATURE_OFFSET]));
        bytes32 digest = MessageHashUtils.toEthSignedMessageHash(getHash(userOp, validUntil, validAfter));
        (address recovered, ECDSA.RecoverError error,) = ECDSA.tryRecover(digest, data[SIGNATURE_OFFSET:]);
        bool failed = error != ECDSA.RecoverError.NoError || recovered != sponsorSigner;
        // No context: nothing to settle in postOp; the service reads the cost from UserOperationEvent.
        return ("", _packValidationData(failed, validUntil, validAfter));
    }
}
