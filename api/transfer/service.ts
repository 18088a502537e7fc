import { createHash } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import type { Client } from '@temporalio/client';
import type { Orm } from '../../db/orm';
import { TransferEntity, type Transfer } from '../../db/entities';
import { coinOf, type NetworkRegistry } from '../../platform/networks';
import { formatMoney } from '../../platform/money';
import type { ChainProviders } from '../../integrations/evm/smart-account';
import type { SolanaChains } from '../../integrations/solana';
import { transferWorkflow } from '../../workflows/transfer';
import { transferWorkflowId, type TransferOutcome } from '../../workflows/messages';
import type { PinBinding, PinService } from '../pin/service';
import type { ApprovalCheck, SpendingPolicy } from './spending-policy';
import type { AddressBook } from './address-book';
import type { CustodyKeys } from '../common/custody';
import { optional, splitPasskeySlot, type Passkeys } from '../passkeys/service';
import { idForRequest } from '../http/idempotency';
import type { GasSponsorships } from '../common/gas-sponsorship';
import type { Holdings } from '../common/holdings';
import { problems } from '../http/problems';
import { startOnce } from '../http/start-once';
import { httpErrorOfFailure } from '../http/workflow-errors';
import { TransferFailure } from '../../platform/failures';
import { solanaAddress } from '../common/addresses';
import { evmTransferIntent } from './evm-intent';
import { solanaTransferIntent } from './solana-intent';
import type { TransferBody, TransferFields } from './schemas';
import type { PolicyCheck } from './intent';

export interface TransferServiceDeps {
  orm: Orm; temporal: Client; networks: NetworkRegistry; providers: ChainProviders; solanaChains: SolanaChains; holdings: Holdings; pins: PinService;
  taskQueue: string; waitSeconds: number; reviewAfterAttempts: number; policy: SpendingPolicy; gas: GasSponsorships;
  addressBook: AddressBook; passkeys: Passkeys; custody: CustodyKeys;
}

/**
 * Crypto transfers: the API validates, checks the PIN, the balance and what is in flight, records the intent and
 * starts transfer-<id>; the worker signs and submits. The answer waits for the outcome up to `waitSeconds`.
 */
/** What the encrypted PIN of a transfer must name: this very transfer (and its Idempotency-Key, or null). */
export const transferApproval = (body: TransferFields, idempotencyKey: string | null): PinBinding => ({
  action: 'transfer', to_address: body.to_address, network: body.network, token: body.token, amount: body.amount, idempotency_key: idempotencyKey,
});

/** What a passkey approval of a transfer signs (inside its challenge, with the transfer id): the same binding as the PIN's. */
export const transferDigest = (body: TransferFields, idempotencyKey: string): string =>
  `0x${createHash('sha256').update(JSON.stringify(transferApproval(body, idempotencyKey))).digest('hex')}`;

export class TransferService {
  constructor(private readonly deps: TransferServiceDeps) {}

  async execute(userId: string, transferId: string, body: Static<typeof TransferBody>, idempotencyKey: string | null): Promise<{ final: boolean; transfer: ReturnType<TransferService['view']> }> {
    const { orm, policy } = this.deps;
    const { network, intent, to } = this.validate(body, userId);
    const recorded = await orm.em.fork().findOne(TransferEntity, { transferId, userId });
    let guard: PolicyCheck | undefined;
    if (!recorded) {
      // Valued and checked against the per-transfer limit before the PIN, so a transfer that cannot pass costs no attempt.
      const valueKrw = await policy.valueInWon(body.token, intent.amount, intent.decimals);
      await policy.assertPerTransfer(userId, valueKrw);
      // EVM gas is sponsored: with nothing of today's budget left, refuse before the PIN (the worker checks exactly).
      if (network.kind === 'evm') await this.deps.gas.assertBudgetLeft(userId);
      const approval = await policy.approvalFor(userId, network.networkId, to, valueKrw);
      const approvedBy = await this.approve(userId, transferId, body, idempotencyKey, approval);
      guard = {
        valueKrw,
        guard: async (tx) => {
          await policy.assertDaily(tx, userId, valueKrw);
          if (approval.recipient.state !== 'trusted') await this.deps.addressBook.trust(tx, userId, network.networkId, to, approvedBy);
        },
      };
    }
    await this.deps.pins.verify(userId, body.pin, { request: transferApproval(body, idempotencyKey), idempotencyKey });
    if (guard) await intent.record(transferId, guard);
    await startOnce(() => this.deps.temporal.workflow.start(transferWorkflow, {
      workflowId: transferWorkflowId(transferId), taskQueue: this.deps.taskQueue, workflowIdReusePolicy: 'REJECT_DUPLICATE',
      args: [{ transferId, userId, networkId: network.networkId, reviewAfterAttempts: this.deps.reviewAfterAttempts }],
    }));
    const outcome = await this.outcomeWithin(transferId, this.deps.waitSeconds * 1000);
    if (outcome?.refused) throw httpErrorOfFailure(outcome.refusalType ?? TransferFailure.TransferRefused, outcome.error ?? 'The transfer would fail on chain', outcome.refusalDetails);
    const current = await orm.em.fork().findOneOrFail(TransferEntity, { transferId });
    return { final: outcome !== undefined, transfer: this.view(current) };
  }

  /**
   * What an app asks before a transfer that may need a passkey: its transfer id (from the Idempotency-Key), its value,
   * which rules want a passkey approval, and the passkey slot whose challenge is bound to this very transfer.
   */
  async prepare(userId: string, body: TransferFields, idempotencyKey: string) {
    const { policy } = this.deps;
    const { network, intent, to } = this.validate(body, userId);
    const valueKrw = await policy.valueInWon(body.token, intent.amount, intent.decimals);
    await policy.assertPerTransfer(userId, valueKrw);
    const approval = await policy.approvalFor(userId, network.networkId, to, valueKrw);
    const transferId = idForRequest('tr', userId, idempotencyKey);
    const slot = await this.deps.passkeys.slotFor(userId, transferId, transferDigest(body, idempotencyKey));
    return {
      transfer_id: transferId, value_krw: valueKrw.toString(), passkey_above_krw: approval.thresholdKrw.toString(),
      recipient: { network: network.networkId, address: to, status: approval.recipient.state === 'cooling-off' ? 'cooling_off' : approval.recipient.state,
        usable_from: approval.recipient.state === 'cooling-off' ? approval.recipient.usableFrom.toISOString() : null },
      passkey_approval: approval.reasons.length ? 'required' as const : 'optional' as const, reasons: approval.reasons,
      items: optional(slot),
    };
  }

  private validate(body: TransferFields, userId: string) {
    const network = this.deps.networks.any(body.network);
    if (!network) {
      if (body.network === 'SOLANA') solanaAddress(body.to_address); // still tell a bad address apart
      throw problems.unavailable(`${body.network} is not configured`);
    }
    const intent = network.kind === 'solana' ? solanaTransferIntent(this.deps, network, body, userId) : evmTransferIntent(this.deps, network, body, userId);
    return { network, intent, to: this.deps.addressBook.normalize(network.networkId, body.to_address) };
  }

  /**
   * The passkey approval of a transfer: required by the policy's rules, or sent anyway (then it must verify too).
   * Checked before the PIN, so a transfer that cannot pass costs no PIN attempt. Answers how the recipient is approved.
   */
  private async approve(userId: string, transferId: string, body: Static<typeof TransferBody>, idempotencyKey: string | null, approval: ApprovalCheck): Promise<'passkey' | 'cooling-off'> {
    const slot = body.signing ? splitPasskeySlot(body.signing.items) : undefined;
    if (!slot) {
      if (approval.reasons.length) throw this.deps.policy.approvalRefusal(approval, (await this.deps.passkeys.list(userId)).length > 0);
      return 'cooling-off';
    }
    if (!idempotencyKey) throw problems.unprocessable('idempotency-key-required', 'A passkey-approved transfer needs the Idempotency-Key it was prepared with (its transfer id is bound into the challenge)');
    const passkey = await this.deps.passkeys.verifyApproval(userId, slot, transferId, transferDigest(body, idempotencyKey));
    // A passkey added moments ago may be a thief's (a stolen token and PIN enrol one): it waives nothing until its hold ends.
    const heldUntil = passkey && approval.reasons.length ? this.deps.passkeys.heldUntil(passkey) : null;
    if (heldUntil) throw this.deps.policy.heldPasskeyRefusal(approval, heldUntil);
    return 'passkey';
  }

  async get(userId: string, transferId: string) {
    const transfer = await this.deps.orm.em.fork().findOne(TransferEntity, { transferId, userId });
    if (!transfer) throw problems.notFound(`Transfer ${transferId}`);
    return this.view(transfer);
  }

  view(t: Transfer) {
    const network = this.deps.networks.any(t.networkId);
    const coin = network ? coinOf(network) : { symbol: 'ETH', decimals: 18 };
    // Fees are shown to at most 8 decimals of the coin (truncated).
    const unit = 10n ** BigInt(Math.max(0, coin.decimals - 8));
    return {
      transfer_id: t.transferId, status: t.status, tx_hash: t.txHash ?? null,
      fee: t.fee === null || t.fee === undefined ? null : formatMoney((BigInt(t.fee) / unit) * unit, coin.decimals, coin.symbol),
      fee_paid_by: network?.kind === 'solana' ? 'user' as const : 'service' as const,
      amount: formatMoney(BigInt(t.amount), t.decimals, t.token), to_address: t.toAddress, network: t.networkId, error: t.error ?? null,
    };
  }

  /**
   * The transfer's outcome if it comes within `ms`, else undefined. The long poll for it is cancelled when the time is
   * up: left running, it would hold a call on the Temporal connection until the workflow ends (and fail, retrying,
   * when the connection closes first at shutdown).
   */
  private async outcomeWithin(transferId: string, ms: number): Promise<TransferOutcome | undefined> {
    const { temporal } = this.deps;
    const timeUp = AbortSignal.timeout(ms);
    return temporal.withAbortSignal(timeUp, () => temporal.workflow.getHandle(transferWorkflowId(transferId)).result() as Promise<TransferOutcome>)
      .catch((error: unknown) => {
        if (timeUp.aborted) return undefined;
        throw error;
      });
  }
}

