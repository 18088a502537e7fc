import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { EntityManager } from '@mikro-orm/core';
import { isAddress } from '@solana/kit';
import type { Orm } from '../../db/orm';
import { SmartAccountEntity, SolanaWalletEntity, TravelRuleRecordEntity, UserEntity } from '../../db/entities';
import type { DataEncryption } from '../../platform/data-encryption';
import { sameName } from '../../platform/names';
import { beneficiaryAccountOf, beneficiaryNamesOf, readTravelRuleMessage } from '../../integrations/travel-rule';
import { travelRuleAnswerWorkflow } from '../../workflows/compliance';
import { HttpError, problems } from '../http/problems';
import type { RateLimits } from '../http/rate-limits';
import { clock } from '../../platform/clock';

export interface Counterpart {
  id: string;
  name: string;
  hash: Buffer;
  origin: string;
}

/** TRAVEL_RULE_COUNTERPARTS: `{"vasp-id": {"name", "tokenSha256", "origin"}}`. */
export function counterpartsFromJson(json: string): Counterpart[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new Error('TRAVEL_RULE_COUNTERPARTS is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error('TRAVEL_RULE_COUNTERPARTS must be a JSON object of provider id -> {name, tokenSha256, origin}');
  return Object.entries(parsed as Record<string, { name?: unknown; tokenSha256?: unknown; origin?: unknown }>).map(
    ([id, c]) => {
      if (
        typeof c?.name !== 'string' ||
        typeof c.tokenSha256 !== 'string' ||
        !/^[0-9a-f]{64}$/.test(c.tokenSha256) ||
        typeof c.origin !== 'string' ||
        !/^https?:\/\/[^/]+$/.test(c.origin)
      ) {
        throw new Error(
          `TRAVEL_RULE_COUNTERPARTS: ${id} needs name, tokenSha256 (64 lowercase hex) and origin (scheme://host[:port])`,
        );
      }
      return { id, name: c.name, hash: Buffer.from(c.tokenSha256, 'hex'), origin: c.origin };
    },
  );
}

/**
 * What a counterpart hears whenever the beneficiary is not confirmed, whether the address is none of ours, its
 * account is closed or the name differs: one answer for all, so no inquiry tells who holds an address or which
 * addresses are ours (our record keeps the real reason).
 */
const BENEFICIARY_NOT_CONFIRMED = 'beneficiary not confirmed';

/** An inquiry's beneficiary address as it is counted and looked up: EVM in lower case (any case names one account). */
type BeneficiaryAddress = { kind: 'evm' | 'solana'; key: string; given: string };

/** Our account at the address, if any: the user and where it is. */
type Holder = { userId: string; address: string; networkId: string };

/**
 * The beneficiary side of the Travel Rule: another provider asks whether an address is one of our users' and whether
 * the beneficiary it names is that user (TRP v3 inquiry, `POST /trp/v3/inquiries`, Authorization: Bearer its token).
 * Each inquiry counts against its counterpart's limit; the IVMS101 is validated (400 otherwise); a new inquiry (not a
 * retry: same request-identifier) counts against its address's daily limit, whoever asks, before the address is
 * looked up (by index) and the name matched against the verified one. Every inquiry is recorded (inbound, payload
 * sealed, the real outcome) and answered alike at its callback by workflow travel-rule-answer-<recordId> (only on
 * that provider's host): approved, or BENEFICIARY_NOT_CONFIRMED for any other outcome.
 */
export class InboundTravelRule {
  constructor(
    private readonly deps: {
      orm: Orm;
      encryption: DataEncryption;
      temporal: Client;
      taskQueue: string;
      counterparts: Counterpart[];
      retentionDays: number;
      rateLimits: RateLimits;
    },
  ) {}

  async inquiry(
    authorization: string | undefined,
    requestIdentifier: string,
    body: { callback: string; IVMS101: unknown },
  ) {
    const counterpart = this.authenticate(authorization);
    // Retries count here too: this limit bounds the work a counterpart makes us do, whatever it sends.
    await this.deps.rateLimits.consume('travel-rule-counterpart', counterpart.id);
    const message = inquiryMessage(counterpart, body);
    const address = beneficiaryAddressOf(beneficiaryAccountOf(message));
    const em = this.deps.orm.em.fork();
    const existing = await em.findOne(TravelRuleRecordEntity, {
      direction: 'inbound',
      counterpartVaspId: counterpart.id,
      requestIdentifier,
    });
    // A retry answers its record and tests nothing new (its message is not read again), so it spends no daily try.
    if (existing) return { received: true as const, recordId: existing.recordId };
    await this.deps.rateLimits.consume('travel-rule-address', address.key);
    const holder = await holderOf(em, address);
    const user = holder ? await em.findOneOrFail(UserEntity, { id: holder.userId }) : null;
    const verified = user?.status === 'active' ? this.deps.encryption.openText(user.nameSealed, user.id) : null;
    const matches = verified !== null && beneficiaryNamesOf(message).some((name) => sameName(name, verified));
    const approved = matches && holder ? { address: holder.address } : null;
    const recordId = `trr_${randomUUID()}`;
    const now = clock.date();
    em.create(TravelRuleRecordEntity, {
      recordId,
      direction: 'inbound',
      userId: user?.id ?? null,
      transferId: null,
      counterpartVaspId: counterpart.id,
      counterpartVaspName: counterpart.name,
      // An address that is none of ours is on no network of ours: its kind is recorded.
      networkId: holder?.networkId ?? (address.kind === 'evm' ? 'EVM' : 'SOLANA'),
      address: holder?.address ?? address.given,
      status: 'answered',
      payloadSealed: this.deps.encryption.sealText(JSON.stringify(message), `travel-rule:${recordId}`),
      reason: !user
        ? 'rejected: unknown address'
        : user.status !== 'active'
          ? `rejected: account ${user.status}`
          : matches
            ? 'approved'
            : 'rejected: beneficiary name mismatch',
      requestIdentifier,
      requestedAt: now,
      decidedAt: now,
      retainUntil: new Date(now.getTime() + this.deps.retentionDays * 86_400_000),
    });
    await em.flush();
    await this.deps.temporal.workflow.start(travelRuleAnswerWorkflow, {
      workflowId: `travel-rule-answer-${recordId}`,
      taskQueue: this.deps.taskQueue,
      args: [
        {
          recordId,
          callback: body.callback,
          requestIdentifier,
          approved,
          rejected: approved ? null : BENEFICIARY_NOT_CONFIRMED,
        },
      ],
    });
    return { received: true as const, recordId };
  }

  private authenticate(authorization: string | undefined): Counterpart {
    const token = authorization?.startsWith('Bearer ') ? authorization.slice(7) : '';
    const hash = createHash('sha256').update(token).digest();
    const found = token ? this.deps.counterparts.find((c) => timingSafeEqual(c.hash, hash)) : undefined;
    if (!found)
      throw new HttpError(
        401,
        'unauthorized',
        'Authentication required',
        'A Travel Rule inquiry needs a counterpart token (Authorization: Bearer)',
        undefined,
        { 'www-authenticate': 'Bearer' },
      );
    return found;
  }
}

/** The inquiry's IVMS101, once its callback is on the counterpart's own host (422) and the message valid (400). */
function inquiryMessage(counterpart: Counterpart, body: { callback: string; IVMS101: unknown }) {
  let sameHost = false;
  try {
    sameHost = new URL(body.callback).origin === counterpart.origin;
  } catch {
    sameHost = false;
  }
  if (!sameHost) throw problems.unprocessable('callback-not-allowed', `The callback must be on ${counterpart.origin}`);
  try {
    return readTravelRuleMessage(body.IVMS101);
  } catch (error) {
    throw new HttpError(
      400,
      'invalid-ivms101',
      'Bad request',
      `Not a valid IVMS101 message: ${(error as Error).message.slice(0, 300)}`,
    );
  }
}

/** The beneficiary's account as an address we could hold (400 for none, or one of no kind we serve). */
function beneficiaryAddressOf(account: string | undefined): BeneficiaryAddress {
  if (account && /^0x[0-9a-fA-F]{40}$/.test(account))
    return { kind: 'evm', key: account.toLowerCase(), given: account };
  if (account && isAddress(account)) return { kind: 'solana', key: account, given: account };
  throw new HttpError(
    400,
    'invalid-ivms101',
    'Bad request',
    'The IVMS101 beneficiary names no account, or one that is neither an EVM nor a Solana address',
  );
}

/** Our deployed account at the address, found by index: smart_accounts.address_lower, solana_wallets.address. */
async function holderOf(em: EntityManager, address: BeneficiaryAddress): Promise<Holder | null> {
  if (address.kind === 'solana') {
    const wallet = await em.findOne(SolanaWalletEntity, { address: address.key }, { fields: ['userId', 'address'] });
    return wallet ? { userId: wallet.userId, address: wallet.address, networkId: 'SOLANA' } : null;
  }
  // The same address on several networks is one user's: the first deployed is recorded. Ordered here, not in SQL:
  // an `order by id limit 1` invites the planner to walk the primary key instead of the address's index.
  const accounts = await em.find(
    SmartAccountEntity,
    { addressLower: address.key, status: 'deployed' },
    { fields: ['userId', 'address', 'networkId'] },
  );
  const account = accounts.sort((a, b) => a.id - b.id)[0];
  return account ? { userId: account.userId, address: account.address, networkId: account.networkId } : null;
}
