import { encodeTravelAddress } from '../../integrations/travel-rule/travel-address';
import { createHash } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import type { Client } from '@temporalio/client';
import type { Orm } from '../../db/orm';
import type { Transfer } from '../../db/entities';
import { transferById, transferOfUser } from '../../db/transfer-changes';
import { coinOf, transferWorkflowVersionOn, type NetworkRegistry } from '../../platform/networks';
import { formatMoney } from '../../platform/money';
import type { ChainProviders } from '../../integrations/evm/smart-account';
import type { SolanaChains } from '../../integrations/solana';
import { transferWorkflow } from '../../workflows/transfer';
import {
  NetworkIdSA,
  TRANSFER_WORKFLOW_VERSION,
  UserIdSA,
  transferWorkflowId,
  type TransferOutcome,
} from '../../workflows/messages';
import type { PinBinding } from '../pin/service';
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
import { evmLedger } from './evm-ledger';
import { solanaLedger } from './solana-ledger';
import type { TransferBody, TransferFields } from './schemas';
import { parseTransfer, runChecks, type TransferCheck } from './intent';
import { transferChecks } from './checks';
import type { Screening } from '../compliance/screening';
import type { TravelRule } from '../compliance/travel-rule';
import type { Monitoring } from '../compliance/monitoring';
import type { DataEncryption } from '../../platform/data-encryption';

export interface TransferServiceDeps {
  orm: Orm;
  temporal: Client;
  networks: NetworkRegistry;
  providers: ChainProviders;
  solanaChains: SolanaChains;
  holdings: Holdings;
  taskQueue: string;
  waitSeconds: number;
  /**
   * The highest transfer workflow version new transfers start with (TRANSFER_WORKFLOW_VERSION; the code's by default):
   * 4 on a network whose sends do not run locally (transferWorkflowVersionOn).
   */
  workflowVersion?: number;
  reviewAfterAttempts: number;
  policy: SpendingPolicy;
  gas: GasSponsorships;
  addressBook: AddressBook;
  passkeys: Passkeys;
  custody: CustodyKeys;
  screening: Screening;
  travelRule: TravelRule;
  encryption: DataEncryption;
  monitoring: Monitoring;
  /** Where counterparts post their Travel Rule decisions: the API's public address, and how long a transfer waits for one. */
  travelRuleCallbackBase: string;
  travelRuleTimeoutSeconds: number;
}

/**
 * Crypto transfers: the API validates, checks the PIN, the balance and what is in flight, records the intent and
 * starts transfer-<id>; the worker signs and submits. The answer waits for the outcome up to `waitSeconds`.
 */
/** What the encrypted PIN of a transfer must name: this very transfer (and its Idempotency-Key, or null). */
export const transferApproval = (body: TransferFields, idempotencyKey: string | null): PinBinding => ({
  action: 'transfer',
  to_address: body.to_address,
  network: body.network,
  token: body.token,
  amount: body.amount,
  // Named only when given, so approvals of transfers without one keep their shape.
  ...(body.beneficiary_name !== undefined ? { beneficiary_name: body.beneficiary_name } : {}),
  ...(body.travel_address !== undefined ? { travel_address: body.travel_address } : {}),
  ...(body.beneficiary_vasp !== undefined ? { beneficiary_vasp: body.beneficiary_vasp } : {}),
  idempotency_key: idempotencyKey,
});

/** What a passkey approval of a transfer signs (inside its challenge, with the transfer id): the same binding as the PIN's. */
export const transferDigest = (body: TransferFields, idempotencyKey: string): string =>
  `0x${createHash('sha256')
    .update(JSON.stringify(transferApproval(body, idempotencyKey)))
    .digest('hex')}`;

/** The statuses a transfer does not leave (a reorg's return to `submitted` is the worker's, not a request's). */
const FINAL_STATUSES: ReadonlySet<string> = new Set(['confirmed', 'finalized', 'failed']);

export class TransferService {
  private readonly checks: TransferCheck[];

  constructor(private readonly deps: TransferServiceDeps) {
    this.checks = [...transferChecks(deps), deps.travelRule.check(), deps.monitoring.check()];
  }

  /** Our Travel Address: the TRP inquiry URL of our listener, as a Travel Address (one for every user). */
  travelAddress() {
    const url = `${this.deps.travelRuleCallbackBase}/trp/v3/inquiries`;
    return { travel_address: encodeTravelAddress(url), inquiry_url: url };
  }

  async execute(
    userId: string,
    transferId: string,
    body: Static<typeof TransferBody>,
    idempotencyKey: string | null,
    /** The route's step-up: the PIN bound to this transfer (api/common/step-up.ts), checked once every check passed. */
    approve: () => Promise<unknown>,
    device?: { signInMethod: string; signedInAt: Date },
  ): Promise<{ final: boolean; transfer: ReturnType<TransferService['view']> }> {
    const { orm, policy } = this.deps;
    const recorded = await transferOfUser(orm.em.fork(), transferId, userId);
    let record: (() => Promise<unknown>) | undefined;
    let networkId = recorded?.networkId ?? body.network;
    let travelRule = Boolean(recorded?.travelRule);
    // A retry of a request whose workflow did not start: a transfer recorded held for review starts with its case, as
    // the first attempt would have (without it the workflow would go straight to signing).
    let review: { kind: string; detail: string } | undefined =
      recorded?.status === 'held_for_review' ? (recorded.review ?? undefined) : undefined;
    if (!recorded) {
      const { intent, ledger } = await this.parse(userId, body, device);
      ledger.precheck?.(intent);
      networkId = intent.network.networkId;
      // Every check runs before the PIN and the passkey approval, so a transfer that cannot pass costs no attempt.
      const findings = await runChecks(this.checks, 'execute', intent);
      travelRule = findings.travelRule !== undefined;
      review = findings.review;
      const approval = await policy.approvalFor(userId, networkId, intent.recipient, intent.valueKrw, intent.limits);
      const approvedBy = await this.approve(userId, transferId, body, idempotencyKey, approval);
      record = () =>
        ledger.record(
          intent,
          transferId,
          {
            guard: async (tx) => {
              await policy.assertDaily(tx, userId, intent.valueKrw, intent.limits);
              if (approval.recipient.state !== 'trusted')
                await this.deps.addressBook.trust(tx, userId, networkId, intent.recipient, approvedBy);
            },
          },
          {
            ...(findings.travelRule
              ? { travelRule: this.travelRuleOf(transferId, findings.travelRule, intent.beneficiaryName!) }
              : {}),
            ...(findings.review ? { status: 'held_for_review' as const, review: findings.review } : {}),
          },
        );
    }
    await approve();
    // A transfer already final (sent and confirmed, or failed: refused, rejected by an operator, failed by the
    // housekeeping sweep) is answered as it is and nothing is started for it again: past the namespace's retention
    // Temporal has forgotten its workflow, and its id would be free for a second run.
    if (recorded && FINAL_STATUSES.has(recorded.status)) return { final: true, transfer: this.view(recorded) };
    if (record) await record();
    await startOnce(() =>
      this.deps.temporal.workflow.start(transferWorkflow, {
        workflowId: transferWorkflowId(transferId),
        taskQueue: this.deps.taskQueue,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        // Operators find a user's or a network's transfers by these (the workflow sets them itself before version 2).
        typedSearchAttributes: [
          { key: UserIdSA, value: userId },
          { key: NetworkIdSA, value: networkId },
        ],
        args: [
          {
            version: transferWorkflowVersionOn(
              this.deps.networks.any(networkId),
              this.deps.workflowVersion ?? TRANSFER_WORKFLOW_VERSION,
            ),
            transferId,
            userId,
            networkId,
            reviewAfterAttempts: this.deps.reviewAfterAttempts,
            ...(travelRule ? { travelRuleTimeoutSeconds: this.deps.travelRuleTimeoutSeconds } : {}),
            ...(review ? { review } : {}),
          },
        ],
      }),
    );
    const outcome = await this.outcomeWithin(transferId, this.deps.waitSeconds * 1000);
    if (outcome?.refused)
      throw httpErrorOfFailure(
        outcome.refusalType ?? TransferFailure.TransferRefused,
        outcome.error ?? 'The transfer would fail on chain',
        outcome.refusalDetails,
      );
    const current = await transferById(orm.em.fork(), transferId);
    return { final: outcome !== undefined, transfer: this.view(current) };
  }

  /**
   * What an app asks before a transfer that may need a passkey: its transfer id (from the Idempotency-Key), its value,
   * which rules want a passkey approval, and the passkey slot whose challenge is bound to this very transfer.
   */
  async prepare(userId: string, body: TransferFields, idempotencyKey: string) {
    const { intent } = await this.parse(userId, body);
    const findings = await runChecks(this.checks, 'prepare', intent);
    const networkId = intent.network.networkId;
    const approval = await this.deps.policy.approvalFor(
      userId,
      networkId,
      intent.recipient,
      intent.valueKrw,
      intent.limits,
    );
    const transferId = idForRequest('tr', userId, idempotencyKey);
    const slot = await this.deps.passkeys.slotFor(userId, transferId, transferDigest(body, idempotencyKey));
    return {
      transfer_id: transferId,
      value_krw: intent.valueKrw.toString(),
      passkey_above_krw: approval.thresholdKrw.toString(),
      recipient: {
        network: networkId,
        address: intent.recipient,
        status: approval.recipient.state === 'cooling-off' ? 'cooling_off' : approval.recipient.state,
        usable_from: approval.recipient.state === 'cooling-off' ? approval.recipient.usableFrom.toISOString() : null,
      },
      passkey_approval: approval.reasons.length ? ('required' as const) : ('optional' as const),
      reasons: approval.reasons,
      travel_rule: findings.travelRule
        ? {
            applies: true,
            counterpart: { id: findings.travelRule.vaspId, name: findings.travelRule.vaspName },
            threshold_krw: this.deps.travelRule.thresholdKrw.toString(),
          }
        : {
            applies: intent.valueKrw >= this.deps.travelRule.thresholdKrw,
            counterpart: null,
            threshold_krw: this.deps.travelRule.thresholdKrw.toString(),
          },
      items: optional(slot),
    };
  }

  /** What the record keeps for the Travel Rule: the counterpart, the beneficiary's name sealed, where it answers. */
  private travelRuleOf(
    transferId: string,
    vasp: { vaspId: string; vaspName: string; trpUrl: string },
    beneficiaryName: string,
  ) {
    const token = this.deps.encryption.derivedId(transferId, 'trp-callback', 32);
    return {
      ...vasp,
      beneficiaryNameSealed: this.deps.encryption.sealText(beneficiaryName, `beneficiary:${transferId}`),
      callbackUrl: `${this.deps.travelRuleCallbackBase}/trp/v3/callbacks/${transferId}/${token}`,
      timeoutSeconds: this.deps.travelRuleTimeoutSeconds,
    };
  }

  /** The request, parsed once into its intent (and the ledger of its network that records it). */
  private parse(userId: string, body: TransferFields, device?: { signInMethod: string; signedInAt: Date }) {
    return parseTransfer(
      {
        networks: this.deps.networks,
        ledgerFor: (network) =>
          network.kind === 'solana' ? solanaLedger(this.deps, network) : evmLedger(this.deps, network),
        value: (token, amount, decimals) => this.deps.policy.valueInWon(token, amount, decimals),
        limits: (id) => this.deps.policy.limitsOf(id),
      },
      userId,
      body,
      device,
    );
  }

  /**
   * The passkey approval of a transfer: required by the policy's rules, or sent anyway (then it must verify too).
   * Checked before the PIN, so a transfer that cannot pass costs no PIN attempt. Answers how the recipient is approved.
   */
  private async approve(
    userId: string,
    transferId: string,
    body: Static<typeof TransferBody>,
    idempotencyKey: string | null,
    approval: ApprovalCheck,
  ): Promise<'passkey' | 'cooling-off'> {
    const slot = body.signing ? splitPasskeySlot(body.signing.items) : undefined;
    if (!slot) {
      if (approval.reasons.length)
        throw this.deps.policy.approvalRefusal(approval, (await this.deps.passkeys.list(userId)).length > 0);
      return 'cooling-off';
    }
    if (!idempotencyKey)
      throw problems.unprocessable(
        'idempotency-key-required',
        'A passkey-approved transfer needs the Idempotency-Key it was prepared with (its transfer id is bound into the challenge)',
      );
    const passkey = await this.deps.passkeys.verifyApproval(
      userId,
      slot,
      transferId,
      transferDigest(body, idempotencyKey),
    );
    // A passkey added moments ago may be a thief's (a stolen token and PIN enrol one): it waives nothing until its hold ends.
    const heldUntil = passkey && approval.reasons.length ? this.deps.passkeys.heldUntil(passkey) : null;
    if (heldUntil) throw this.deps.policy.heldPasskeyRefusal(approval, heldUntil);
    return 'passkey';
  }

  async get(userId: string, transferId: string) {
    const transfer = await transferOfUser(this.deps.orm.em.fork(), transferId, userId);
    if (!transfer) throw problems.notFound(`Transfer ${transferId}`);
    return this.view(transfer);
  }

  view(t: Transfer) {
    const network = this.deps.networks.any(t.networkId);
    const coin = network ? coinOf(network) : { symbol: 'ETH', decimals: 18 };
    // Fees are shown to at most 8 decimals of the coin (truncated).
    const unit = 10n ** BigInt(Math.max(0, coin.decimals - 8));
    return {
      transfer_id: t.transferId,
      status: t.status,
      // Strings as the interface types them: empty until known (as the profile's email is).
      tx_hash: t.txHash ?? '',
      fee:
        t.fee === null || t.fee === undefined
          ? ''
          : formatMoney((BigInt(t.fee) / unit) * unit, coin.decimals, coin.symbol),
      fee_paid_by: network?.kind === 'solana' ? ('user' as const) : ('service' as const),
      amount: formatMoney(BigInt(t.amount), t.decimals, t.token),
      to_address: t.toAddress,
      network: t.networkId,
      error: t.error ?? null,
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
    return temporal
      .withAbortSignal(
        timeUp,
        () => temporal.workflow.getHandle(transferWorkflowId(transferId)).result() as Promise<TransferOutcome>,
      )
      .catch((error: unknown) => {
        if (timeUp.aborted) return undefined;
        throw error;
      });
  }
}
