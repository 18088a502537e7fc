// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import "./WalletAccount.sol";

/**
 * WalletAccount plus recovery of the owner key with a time lock the owner can cancel (as Candide's recovery module for
 * Safe, or Argent's guardians). Accounts move to it by an owner-signed upgrade (UUPS upgradeToAndCall with
 * configureRecovery), so the factory, its CREATE2 init code and every account's address stay as they are; its storage
 * is WalletAccount's with two slots appended.
 *
 * The recovery key (the service's, opened only in its worker) can do two things and nothing else:
 *   - scheduleRecovery(newOwner): a new owner, effective after recoveryDelay;
 *   - executeRecovery(newOwner): once the delay has passed, make it the owner.
 * It signs no user operation (_validateSignature does not know it), so it cannot transfer, call, upgrade, or change
 * the transfer signer, its caps or the recovery settings. During the delay the owner cancels (cancelRecovery, through
 * a user operation or directly), or changes the recovery settings, which also drops a pending recovery.
 */
contract WalletAccountRecoverable is WalletAccount {
    address public recoveryKey;
    uint48 public recoveryDelay;
    address public pendingOwner;
    uint48 public recoveryExecuteAfter;

    event RecoveryConfigured(address indexed key, uint48 delay);
    event RecoveryScheduled(address indexed newOwner, uint48 executeAfter);
    event RecoveryCancelled(address indexed newOwner);
    event RecoveryExecuted(address indexed previousOwner, address indexed newOwner);

    constructor(IEntryPoint anEntryPoint) WalletAccount(anEntryPoint) {}

    /// The key that may recover the owner and the delay the owner has to cancel it. Owner only (the upgrade calls it).
    function configureRecovery(address key, uint48 delay) external onlyOwner {
        require(delay > 0, "recovery: zero delay");
        if (pendingOwner != address(0)) _dropPending();
        recoveryKey = key;
        recoveryDelay = delay;
        emit RecoveryConfigured(key, delay);
    }

    /// A new owner, effective after the delay. Recovery key only; one recovery at a time.
    function scheduleRecovery(address newOwner) external {
        _requireRecoveryKey();
        require(newOwner != address(0) && newOwner != owner, "recovery: bad owner");
        require(pendingOwner == address(0), "recovery: already pending");
        pendingOwner = newOwner;
        recoveryExecuteAfter = uint48(block.timestamp) + recoveryDelay;
        emit RecoveryScheduled(newOwner, recoveryExecuteAfter);
    }

    /// Makes the scheduled owner the owner, once the delay has passed. Recovery key only, for the owner it scheduled.
    function executeRecovery(address newOwner) external {
        _requireRecoveryKey();
        require(pendingOwner != address(0) && pendingOwner == newOwner, "recovery: not pending");
        require(block.timestamp >= recoveryExecuteAfter, "recovery: too early");
        emit OwnerChanged(owner, newOwner);
        emit RecoveryExecuted(owner, newOwner);
        owner = newOwner;
        pendingOwner = address(0);
        recoveryExecuteAfter = 0;
    }

    /// The owner refuses a pending recovery (through a user operation, or directly).
    function cancelRecovery() external onlyOwner {
        require(pendingOwner != address(0), "recovery: none pending");
        _dropPending();
    }

    function _dropPending() internal {
        emit RecoveryCancelled(pendingOwner);
        pendingOwner = address(0);
        recoveryExecuteAfter = 0;
    }

    function _requireRecoveryKey() internal view {
        require(msg.sender == recoveryKey && recoveryKey != address(0), "recovery: not the recovery key");
    }
}
