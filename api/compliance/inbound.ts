import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Orm } from '../../db/orm';
import { SmartAccountEntity, SolanaWalletEntity, TravelRuleRecordEntity, UserEntity } from '../../db/entities';
import type { DataEncryption } from '../../platform/data-encryption';
import { sameName } from '../../platform/names';
import { beneficiaryAccountOf, beneficiaryNamesOf, readTravelRuleMessage } from '../../integrations/travel-rule';
import { travelRuleAnswerWorkflow } from '../../workflows/compliance';
import { HttpError, problems } from '../http/problems';
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
 * The beneficiary side of the Travel Rule: another provider asks whether an address is one of our users' and whether
 * the beneficiary it names is that user (TRP v3 inquiry, `POST /trp/v3/inquiries`, Authorization: Bearer its token).
 * The IVMS101 is validated (400 otherwise), the address looked up among our users' accounts (404 when none), the name
 * matched against the verified one; the exchange is recorded (inbound, payload sealed) and the answer posted to the
 * inquiry's callback by workflow travel-rule-answer-<recordId> (only on that provider's host). A repeated inquiry
 * (same request-identifier) answers the same record.
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
    },
  ) {}

  async inquiry(
    authorization: string | undefined,
    requestIdentifier: string,
    body: { callback: string; IVMS101: unknown },
  ) {
    const counterpart = this.authenticate(authorization);
    let sameHost = false;
    try {
      sameHost = new URL(body.callback).origin === counterpart.origin;
    } catch {
      sameHost = false;
    }
    if (!sameHost)
      throw problems.unprocessable('callback-not-allowed', `The callback must be on ${counterpart.origin}`);
    let message;
    try {
      message = readTravelRuleMessage(body.IVMS101);
    } catch (error) {
      throw new HttpError(
        400,
        'invalid-ivms101',
        'Bad request',
        `Not a valid IVMS101 message: ${(error as Error).message.slice(0, 300)}`,
      );
    }
    const account = beneficiaryAccountOf(message);
    if (!account)
      throw new HttpError(400, 'invalid-ivms101', 'Bad request', 'The IVMS101 beneficiary names no account');
    const em = this.deps.orm.em.fork();
    const existing = await em.findOne(TravelRuleRecordEntity, {
      direction: 'inbound',
      counterpartVaspId: counterpart.id,
      requestIdentifier,
    });
    if (existing) return { received: true as const, recordId: existing.recordId };
    const holder = /^0x[0-9a-fA-F]{40}$/.test(account)
      ? (
          await em.find(SmartAccountEntity, { status: 'deployed' }, { fields: ['userId', 'address', 'networkId'] })
        ).find((a) => a.address.toLowerCase() === account.toLowerCase())
      : await em.findOne(SolanaWalletEntity, { address: account }, { fields: ['userId', 'address'] });
    if (!holder) throw problems.notFound(`Account ${account}`);
    const user = await em.findOneOrFail(UserEntity, { id: holder.userId });
    const verified = this.deps.encryption.openText(user.nameSealed, user.id);
    const matches = user.status === 'active' && beneficiaryNamesOf(message).some((name) => sameName(name, verified));
    const recordId = `trr_${randomUUID()}`;
    const now = clock.date();
    em.create(TravelRuleRecordEntity, {
      recordId,
      direction: 'inbound',
      userId: user.id,
      transferId: null,
      counterpartVaspId: counterpart.id,
      counterpartVaspName: counterpart.name,
      networkId: 'networkId' in holder ? holder.networkId : 'SOLANA',
      address: holder.address,
      status: 'answered',
      payloadSealed: this.deps.encryption.sealText(JSON.stringify(message), `travel-rule:${recordId}`),
      reason: matches
        ? 'approved'
        : user.status === 'active'
          ? 'rejected: beneficiary name mismatch'
          : 'rejected: account closed',
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
          approved: matches ? { address: holder.address } : null,
          rejected: matches ? null : 'beneficiary name mismatch',
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
