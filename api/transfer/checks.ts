import type { SpendingPolicy } from './spending-policy';
import type { GasSponsorships } from '../common/gas-sponsorship';
import type { Screening } from '../compliance/screening';
import type { TransferCheck } from './intent';

/** The per-transfer limit: a transfer worth more than the user's per-transfer limit is refused (422 limit-per-transfer). */
export const perTransferLimit = (policy: Pick<SpendingPolicy, 'assertPerTransfer'>): TransferCheck => ({
  name: 'per-transfer-limit',
  stages: ['prepare', 'execute'],
  first: true,
  run: (intent) => policy.assertPerTransfer(intent.valueKrw, intent.limits),
});

/**
 * Sanctions screening of the recipient: on a sanctions list, or named by the screening provider, the transfer is refused
 * (422 recipient-sanctioned) and a compliance case is opened; a screening that cannot answer refuses it too (503).
 */
export const recipientScreening = (screening: Pick<Screening, 'assertNotSanctioned'>): TransferCheck => ({
  name: 'sanctions-screening',
  stages: ['prepare', 'execute'],
  run: (intent, stage) =>
    screening.assertNotSanctioned(intent.userId, intent.network.networkId, intent.recipient, { context: stage }),
});

/** EVM gas is sponsored: with nothing of today's budget left, the transfer is refused before the PIN (the worker checks exactly). */
export const gasBudgetLeft = (gas: Pick<GasSponsorships, 'assertBudgetLeft'>): TransferCheck => ({
  name: 'gas-budget',
  stages: ['execute'],
  run: async (intent) => {
    if (intent.network.kind === 'evm') await gas.assertBudgetLeft(intent.userId);
  },
});

/**
 * The checks of every transfer, in the order their refusals count: the per-transfer limit first (alone, before the
 * others run side by side), the screening, which opens a case, after it.
 */
export const transferChecks = (deps: {
  policy: SpendingPolicy;
  screening: Screening;
  gas: GasSponsorships;
}): TransferCheck[] => [perTransferLimit(deps.policy), recipientScreening(deps.screening), gasBudgetLeft(deps.gas)];
