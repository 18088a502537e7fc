import { timingSafeEqual } from 'node:crypto';
import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/core';
import { isAddress } from '@solana/kit';
import type { Orm } from '../../db/orm';
import {
  SmartAccountEntity,
  SolanaWalletEntity,
  TravelRuleRecordEntity,
  UserEntity,
  type TravelRuleRecord,
} from '../../db/entities';
import type { DataEncryption } from '../../platform/data-encryption';
import { sameName } from '../../platform/names';
import { Ivms101Invalid, readIvms101, type Ivms101Reading } from '../../integrations/travel-rule/ivms101';
import { isAcceptedTrpVersion, type TravelRuleCounterpart } from '../../integrations/travel-rule/trp';
import { counterpartPresenting } from '../../integrations/travel-rule/counterparts';
import { assetLabel, assetLabelsOf } from '../../integrations/travel-rule/assets';
import type { NetworkRegistry } from '../../platform/networks';
import { HttpError, problems } from '../http/problems';
import type { RateLimits } from '../http/rate-limits';
import { clock } from '../../platform/clock';
import { newTravelRuleRecord } from '../../db/compliance';

/**
 * What a counterpart hears whenever the beneficiary is not confirmed, whether the address is none of ours, its
 * account is closed or the name differs: one answer for all, so no inquiry tells who holds an address or which
 * addresses are ours (our record keeps the real reason).
 */
const BENEFICIARY_NOT_CONFIRMED = 'beneficiary not confirmed';

/** An inquiry's beneficiary address as it is counted and looked up: EVM in lower case (any case names one account). */
export type BeneficiaryAddress = { kind: 'evm' | 'solana'; key: string; given: string };

/** Our account at the address, if any: the user, where it was first deployed, and every network it is deployed on. */
export type Holder = { userId: string; address: string; networkId: string; networkIds: string[] };

/** The peer of a TRP request as the TLS listener saw it: its certificate verified against the CA, and its fingerprint. */
export interface TrpPeer {
  authorized: boolean;
  fingerprint256?: string;
}

/**
 * The beneficiary side of the Travel Rule (TRP v3): another VASP asks whether an account is one of our users' and
 * whether the beneficiary it names is that user (`POST /trp/v3/inquiries` on the TRP listener, over mutual TLS: the
 * counterpart is the one whose pinned certificate it presented). Each inquiry counts against its counterpart's limit;
 * the IVMS101 (2020 or 2023 form) is read (400 otherwise, and for a beneficiary named as several persons or more
 * than twice in one kind of identifier); a new inquiry (not a retry: same request-identifier) spends one of its
 * address's daily tries per distinct beneficiary name it gives, whoever asks, before the address is looked up (by
 * index) and the names matched against the verified one. Every inquiry is recorded (inbound, payload sealed, the real outcome) and
 * resolved at once in the answer: approved with the URL where the originator confirms the transfer, or
 * BENEFICIARY_NOT_CONFIRMED for any other outcome. The originator's confirmation (`txid` or `canceled`) is recorded.
 */
export class InboundTravelRule {
  constructor(
    private readonly deps: {
      orm: Orm;
      encryption: DataEncryption;
      counterparts: TravelRuleCounterpart[];
      networks: Pick<NetworkRegistry, 'any'>;
      /** Our TRP origin (TRAVEL_RULE_PUBLIC_URL): where our confirmation URLs point. */
      publicUrl: string;
      retentionDays: number;
      rateLimits: RateLimits;
    },
  ) {}

  /** The counterpart on the other end of a TRP request (401 for a peer without a pinned certificate). */
  counterpartOf(peer: TrpPeer | undefined): TravelRuleCounterpart {
    const found = peer?.authorized ? counterpartPresenting(this.deps.counterparts, peer.fingerprint256) : undefined;
    if (!found)
      throw new HttpError(
        401,
        'unauthorized',
        'Authentication required',
        peer
          ? 'TRP messages are taken from the VASPs of TRAVEL_RULE_COUNTERPARTS only: present the certificate pinned for you'
          : 'TRP is served over mutual TLS on the TRP listener (TRAVEL_RULE_PORT), not on this address',
      );
    return found;
  }

  async inquiry(
    peer: TrpPeer | undefined,
    headers: { apiVersion: string; requestIdentifier: string },
    body: { asset: unknown; amount: number | string; callback: string; IVMS101: unknown },
  ): Promise<{ approved: { address: string; callback: string } } | { rejected: string }> {
    const counterpart = this.counterpartOf(peer);
    checkVersion(headers.apiVersion);
    // Retries count here too: this limit bounds the work a counterpart makes us do, whatever it sends.
    await this.deps.rateLimits.consume('travel-rule-counterpart', counterpart.id);
    const reading = readInquiry(body.IVMS101);
    const address = beneficiaryAddressOf(reading.beneficiary.accounts[0]);
    const em = this.deps.orm.em.fork();
    const existing = await em.findOne(TravelRuleRecordEntity, {
      direction: 'inbound',
      counterpartVaspId: counterpart.id,
      requestIdentifier: headers.requestIdentifier,
    });
    // A retry is answered as the first time and tests nothing new (its message is not read again), so it spends no try.
    if (existing) return this.resolutionOf(existing);
    // Each distinct name the message tries for its beneficiary is one of the address's daily tries.
    await spendNameTries(this.deps.rateLimits, counterpart.id, address.key, reading.beneficiary.nameTries);
    const holder = await holderOf(em, address);
    const user = holder ? await em.findOneOrFail(UserEntity, { id: holder.userId }) : null;
    const verified = user?.status === 'active' ? this.deps.encryption.openText(user.nameSealed, user.id) : null;
    const matches = verified !== null && reading.beneficiary.names.some((name) => sameName(name, verified));
    // What is sent must be something the account holds on a network it is deployed on: an approval of a coin or a
    // token we do not keep there would have the originator send what our user could never reach.
    const asset = assetLabel(body.asset) ?? 'slip0044:0';
    const receivable =
      holder !== null &&
      holder.networkIds.some((id) => {
        const network = this.deps.networks.any(id);
        return network !== undefined && assetLabelsOf(network).includes(asset);
      });
    const record = newTravelRuleRecord(
      em,
      { encryption: this.deps.encryption, retentionDays: this.deps.retentionDays },
      {
        direction: 'inbound',
        userId: user?.id ?? null,
        transferId: null,
        counterpartVaspId: counterpart.id,
        counterpartVaspName: counterpart.name,
        // An address that is none of ours is on no network of ours: its kind is recorded.
        networkId: holder?.networkId ?? (address.kind === 'evm' ? 'EVM' : 'SOLANA'),
        address: holder?.address ?? address.given,
        status: 'answered',
        payload: body.IVMS101,
        reason: !user
          ? 'rejected: unknown address'
          : user.status !== 'active'
            ? `rejected: account ${user.status}`
            : !matches
              ? 'rejected: beneficiary name mismatch'
              : receivable
                ? 'approved'
                : `rejected: ${asset} not received at this account`,
        requestIdentifier: headers.requestIdentifier,
        asset,
        amount: String(body.amount).slice(0, 80),
      },
    );
    try {
      await em.flush();
    } catch (error) {
      // The same inquiry twice at once (a counterpart retrying before our answer reached it): the first one recorded
      // is the answer to both.
      if (!(error instanceof UniqueConstraintViolationException)) throw error;
      const first = await this.deps.orm.em.fork().findOneOrFail(TravelRuleRecordEntity, {
        direction: 'inbound',
        counterpartVaspId: counterpart.id,
        requestIdentifier: headers.requestIdentifier,
      });
      return this.resolutionOf(first);
    }
    return this.resolutionOf(record);
  }

  /**
   * The originator's transfer confirmation at the URL our approval gave: its transaction id, or why it canceled.
   * Only the counterpart we approved, and once: the same confirmation again is taken (a retry), another is 409.
   */
  async confirmation(
    peer: TrpPeer | undefined,
    params: { recordId: string; token: string },
    headers: { apiVersion: string; requestIdentifier: string },
    body: { txid?: string; canceled?: string },
  ): Promise<void> {
    const counterpart = this.counterpartOf(peer);
    checkVersion(headers.apiVersion);
    if ((body.txid === undefined) === (body.canceled === undefined))
      throw new HttpError(
        400,
        'invalid-trp-message',
        'Bad request',
        'A TRP confirmation carries either txid or canceled, and not both',
      );
    const em = this.deps.orm.em.fork();
    const record = await em.findOne(TravelRuleRecordEntity, { recordId: params.recordId, direction: 'inbound' });
    if (
      !record ||
      record.counterpartVaspId !== counterpart.id ||
      record.reason !== 'approved' ||
      !sameSecret(params.token, this.confirmationToken(record.recordId))
    )
      throw problems.notFound('Travel Rule approval');
    const given = { txid: body.txid ?? null, canceled: body.canceled ?? null };
    if (record.confirmedAt) {
      if (record.txid === given.txid && record.canceled === given.canceled) return;
      throw problems.conflict('travel-rule-confirmed', 'This transfer was confirmed otherwise already');
    }
    const claimed = await em.nativeUpdate(
      TravelRuleRecordEntity,
      { recordId: record.recordId, confirmedAt: null },
      { ...given, confirmedAt: clock.date() },
    );
    if (claimed === 0) return this.confirmation(peer, params, headers, body);
  }

  private confirmationToken(recordId: string): string {
    return this.deps.encryption.derivedId(recordId, 'trp-confirmation', 32);
  }

  private resolutionOf(record: TravelRuleRecord):
    | { approved: { address: string; callback: string } }
    | {
        rejected: string;
      } {
    if (record.reason !== 'approved') return { rejected: BENEFICIARY_NOT_CONFIRMED };
    const token = this.confirmationToken(record.recordId);
    return {
      approved: {
        address: record.address,
        callback: `${this.deps.publicUrl}/trp/v3/confirmations/${record.recordId}/${token}`,
      },
    };
  }
}

const sameSecret = (given: string, expected: string) =>
  given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));

/** 400 for a TRP version whose messages we do not read (TRISA answers the same for a version it does not speak). */
function checkVersion(version: string): void {
  if (!isAcceptedTrpVersion(version))
    throw problems.badHeader(
      'api-version',
      `api-version ${version.slice(0, 20)} is not one we speak: 3.1.x or 3.2.x (we send 3.1.0)`,
    );
}

/** The inquiry's IVMS101, read (400 for a message that is not one). */
function readInquiry(message: unknown): Ivms101Reading {
  try {
    return readIvms101(message);
  } catch (error) {
    if (!(error instanceof Ivms101Invalid)) throw error;
    throw new HttpError(
      400,
      'invalid-ivms101',
      'Bad request',
      `Not a valid IVMS101 message: ${error.message.slice(0, 300)}`,
    );
  }
}

/**
 * Spends a new Travel Rule message's names (at least one) of the address's daily tries: first of this counterpart's
 * share of them (travel-rule-counterpart-address), so that no one counterpart spends them all, then of the address's
 * whoever asks (travel-rule-address). Over either: 429, nothing looked up.
 */
export async function spendNameTries(
  rateLimits: RateLimits,
  counterpartId: string,
  addressKey: string,
  names: number,
): Promise<void> {
  const cost = Math.max(1, names);
  await rateLimits.consume('travel-rule-counterpart-address', `${counterpartId}|${addressKey}`, false, cost);
  await rateLimits.consume('travel-rule-address', addressKey, false, cost);
}

/** An account as an address we could hold (EVM in lower case as its key), or null for one of no kind we serve. */
export function addressWeServe(account: string | undefined): BeneficiaryAddress | null {
  if (account && /^0x[0-9a-fA-F]{40}$/.test(account))
    return { kind: 'evm', key: account.toLowerCase(), given: account };
  if (account && isAddress(account)) return { kind: 'solana', key: account, given: account };
  return null;
}

/** The beneficiary's account as an address we could hold (400 for none, or one of no kind we serve). */
function beneficiaryAddressOf(account: string | undefined): BeneficiaryAddress {
  const address = addressWeServe(account);
  if (address) return address;
  throw new HttpError(
    400,
    'invalid-ivms101',
    'Bad request',
    'The IVMS101 beneficiary names no account, or one that is neither an EVM nor a Solana address',
  );
}

/** Our deployed account at the address, found by index: smart_accounts.address_lower, solana_wallets.address. */
export async function holderOf(em: EntityManager, address: BeneficiaryAddress): Promise<Holder | null> {
  if (address.kind === 'solana') {
    const wallet = await em.findOne(SolanaWalletEntity, { address: address.key }, { fields: ['userId', 'address'] });
    return wallet
      ? { userId: wallet.userId, address: wallet.address, networkId: 'SOLANA', networkIds: ['SOLANA'] }
      : null;
  }
  // The same address on several networks is one user's: the first deployed is recorded. Ordered here, not in SQL:
  // an `order by id limit 1` invites the planner to walk the primary key instead of the address's index.
  const accounts = await em.find(
    SmartAccountEntity,
    { addressLower: address.key, status: 'deployed' },
    { fields: ['userId', 'address', 'networkId'] },
  );
  const account = accounts.sort((a, b) => a.id - b.id)[0];
  return account
    ? {
        userId: account.userId,
        address: account.address,
        networkId: account.networkId,
        networkIds: accounts.map((a) => a.networkId),
      }
    : null;
}
