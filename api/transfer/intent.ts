import type { EntityManager } from '@mikro-orm/core';
import type { Transfer } from '../../db/entities';
import type { EvmNetwork, NetworkRegistry, SolanaNetwork } from '../../platform/networks';
import { parseAmount } from '../../platform/money';
import { problems } from '../http/problems';
import { solanaAddress, addressOn } from '../common/addresses';
import type { TransferFields } from './schemas';
import type { Limits } from './spending-policy';

/**
 * One transfer request, parsed once: the network, the recipient as stored (EVM checksummed, Solana base58), the token,
 * the amount in base units and its value in won at the request's price. Every check, the approvals and the record read
 * this; `requested` is the request as sent, which the PIN and passkey approvals bind.
 */
export interface TransferIntent {
  readonly userId: string;
  readonly network: EvmNetwork | SolanaNetwork;
  readonly recipient: string;
  readonly token: string;
  readonly decimals: number;
  readonly amount: bigint;
  readonly valueKrw: bigint;
  /**
   * The user's spending limits, read once with the price: the per-transfer rule, the passkey threshold and the daily
   * rule under the user's lock all read these (an operator's change lands on the next request).
   */
  readonly limits: Limits;
  /** The recipient's name the user gave (trimmed), for the Travel Rule. */
  readonly beneficiaryName?: string;
  /** The recipient's Travel Address (TRP) the user gave: their account is at the VASP it names. */
  readonly travelAddress?: string;
  /** The recipient's exchange on CODE's network (its entity id), when they named one. */
  readonly beneficiaryVasp?: string;
  /** The device session that asks (how and when it signed in), for monitoring; absent for tokens from before devices. */
  readonly device?: { signInMethod: string; signedInAt: Date };
  readonly requested: TransferFields;
}

/** What checks found that the record keeps: the Travel Rule's counterpart when the rule applies. */
export interface CheckFindings {
  travelRule?: { vaspId: string; vaspName: string; trpUrl: string; network?: 'code' };
  /** A monitoring rule wants an operator to decide first: the transfer is recorded held_for_review and a case opened. */
  review?: { kind: 'structuring' | 'fan_out' | 'new_recipient_large' | 'new_device_large'; detail: string };
}

/** Where a check runs: `prepare` (nothing recorded) and `execute` (before the PIN or passkey approval is checked). */
export type CheckStage = 'prepare' | 'execute';

/**
 * One rule a transfer must pass before any credential is checked, so a transfer that cannot pass costs no PIN attempt.
 * Checks run in their list's order and refuse with a typed problem; each is a small unit with its own tests.
 */
export interface TransferCheck {
  readonly name: string;
  readonly stages: readonly CheckStage[];
  /**
   * Runs before the others start: a refusal that needs no outside answer (the per-transfer limit), so that the
   * others' effects (the screening opens a compliance case for a listed address) come only after it passed.
   */
  readonly first?: boolean;
  run(intent: TransferIntent, stage: CheckStage): Promise<CheckFindings | void>;
}

/**
 * The stage's checks: those marked `first` one after another, then the rest side by side (each waits on a provider or
 * the database, none on another), answered in the list's order: the first refusal in it is the one thrown, as when
 * they ran one after another.
 */
export async function runChecks(
  checks: readonly TransferCheck[],
  stage: CheckStage,
  intent: TransferIntent,
): Promise<CheckFindings> {
  const due = checks.filter((check) => check.stages.includes(stage));
  let findings: CheckFindings = {};
  for (const check of due.filter((c) => c.first)) findings = { ...findings, ...(await check.run(intent, stage)) };
  const rest = await Promise.allSettled(due.filter((c) => !c.first).map((check) => check.run(intent, stage)));
  for (const outcome of rest) {
    if (outcome.status === 'rejected') throw outcome.reason;
    findings = { ...findings, ...outcome.value };
  }
  return findings;
}

/** What recording adds inside its own transaction: the rules that need the lock (the daily limit, trusting the recipient). */
export interface RecordGuard {
  guard(tx: EntityManager): Promise<void>;
}

/** The chain side of transfers on one network: its tokens, and recording a transfer with its funds reserved. */
export interface TransferLedger {
  /** The token's decimals; an unknown token is 422 unknown-token naming those there are. */
  decimalsOf(symbol: string): number;
  /**
   * Starts the reads `record` checks first (the sending account, what it authorizes) while the request's other checks
   * run; their refusal is still answered by `record`.
   */
  precheck?(intent: TransferIntent): void;
  record(
    intent: TransferIntent,
    transferId: string,
    guard: RecordGuard,
    extra?: Partial<Pick<Transfer, 'travelRule' | 'status' | 'review'>>,
  ): Promise<unknown>;
}

export const unknownToken = (symbol: string, networkId: string, known: string[]) =>
  problems.unprocessable('unknown-token', `${symbol} is not transferable on ${networkId}; tokens: ${known.join(', ')}`);

/** Transfers whose amount the chain balance may not show yet: recorded, or sent and not yet included (again, after a reorg). */
export const IN_FLIGHT: Array<'held_for_review' | 'processing' | 'submitted'> = [
  'held_for_review',
  'processing',
  'submitted',
];

/**
 * Parses a request into its intent: the network (503 when not configured), the recipient (422 invalid-address), the
 * token (422 unknown-token), the amount (422 invalid-amount) and, from `value`, its worth in won now.
 */
export async function parseTransfer(
  deps: {
    networks: NetworkRegistry;
    ledgerFor(network: EvmNetwork | SolanaNetwork): TransferLedger;
    value(token: string, amount: bigint, decimals: number): Promise<bigint>;
    limits(userId: string): Promise<Limits>;
  },
  userId: string,
  requested: TransferFields,
  device?: { signInMethod: string; signedInAt: Date },
): Promise<{ intent: TransferIntent; ledger: TransferLedger }> {
  const network = deps.networks.any(requested.network);
  if (!network) {
    if (requested.network === 'SOLANA') solanaAddress(requested.to_address); // still tell a bad address apart
    throw problems.unavailable(`${requested.network} is not configured`);
  }
  const recipient = addressOn(network, requested.to_address);
  const ledger = deps.ledgerFor(network);
  const decimals = ledger.decimalsOf(requested.token);
  const amount = parseAmount(requested.amount, decimals, requested.token);
  const [valueKrw, limits] = await Promise.all([deps.value(requested.token, amount, decimals), deps.limits(userId)]);
  const beneficiaryName = requested.beneficiary_name?.trim() || undefined;
  return {
    intent: {
      userId,
      network,
      recipient,
      token: requested.token,
      decimals,
      amount,
      valueKrw,
      limits,
      beneficiaryName,
      travelAddress: requested.travel_address,
      beneficiaryVasp: requested.beneficiary_vasp,
      device,
      requested,
    },
    ledger,
  };
}
