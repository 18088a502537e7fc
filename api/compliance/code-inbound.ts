import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Orm } from '../../db/orm';
import { TransferEntity, TravelRuleRecordEntity, UserEntity, type TravelRuleRecord } from '../../db/entities';
import type { DataEncryption } from '../../platform/data-encryption';
import { coinOf, type NetworkRegistry } from '../../platform/networks';
import { clock } from '../../platform/clock';
import { newTravelRuleRecord } from '../../db/compliance';
import { openCodePayload, sealCodePayload, type CodeBoxKey } from '../../integrations/travel-rule/code/crypto';
import {
  CodeIvms101Invalid,
  codeBeneficiaryVasp,
  readCodeIvms101,
  sameCodeName,
  type CodeIvms101Reading,
} from '../../integrations/travel-rule/code/ivms101';
import type { CodeVasp } from '../../integrations/travel-rule/counterparts';
import { HttpError } from '../http/problems';
import type { RateLimits } from '../http/rate-limits';
import { addressWeServe, holderOf, spendNameTries } from './inbound';

/**
 * A refusal in CODE's Response API form ("Dev 10 - Returning Errors"): HTTP 503 with `{errorType, errorMsg}`, for a
 * request we cannot process (an `invalid` or `denied` answer is not an error: it is a 200).
 */
export class CodeRefusal extends Error {
  constructor(
    readonly errorType:
      | 'UNKNOWN_TRANSFER_ID'
      | 'VASP_BACKEND_INTERNAL_ERROR'
      | 'MISSING_REQUIRED_MSG_FIELD'
      | 'MISSING_HEADER_FIELD'
      | 'INVALID_MSG_FIELD_VALUE'
      | 'DUPLICATED_TRANSFER_ID'
      | 'INVALID_ENCRYPTED_BODY'
      | 'UNACCEPTABLE_REQUEST',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Who sent a request through CODE's hub: the member (one of TRAVEL_RULE_CODE_VASPS) and its verify key, or CODE's
 * own entity (CODE_HUB), which the listener lets ask only what concerns no person.
 */
export interface CodeSender {
  vasp: CodeVasp;
  /** `X-Code-Req-PubKey`: the sender's Ed25519 verify key (base64), which sealed its payload. */
  publicKey: string;
  /** CODE's own entity, not a counterpart: a transfer's status is any of ours over CODE (it relayed each one). */
  hub?: true;
}

/** CODE's answer to a report: `normal`, or `error` with its reason. */
type CodeResult = { transferId: string; result: string; reasonType: string };

const resultOf = (transferId: string, reasonType: string): CodeResult => ({
  transferId,
  result: reasonType ? 'error' : 'normal',
  reasonType,
});

/** A transfer as CODE's Transaction Status Search names its states ("API 04-5"). */
type CodeTransferStatus = 'pending' | 'processing' | 'wait-confirm' | 'confirmed' | 'canceled';

/**
 * CODE's Response API ("API 04", https://docs.codevasp.com): what CODE's hub asks us on behalf of another member
 * exchange. As the beneficiary VASP: whether an address is one of our users' (Virtual Asset Address Search), whether
 * a transfer to one may come (Asset Transfer Authorization: the IVMS101 opened, the address held by an active user,
 * the asset one the account receives, the beneficiary's name the verified one as CODE's "Dev 06" compares names, and
 * the originator named; recorded, answered `verified` with our BeneficiaryVASP added, sealed for the sender, or
 * `denied`), its transaction id (Report Transfer Result) and its cancelation (Finish Transfer). As the originating
 * VASP: the state of a transfer we authorized with the asker (Transaction Status Search), whether we sent a
 * transaction (Search VASP by TXID) and the Travel Rule data of one we sent without asking first (Asset Transfer Data
 * Request: the originator's name and birth date, sealed for the asker, disclosed only to a member of our list and
 * recorded). Every message of a member counts against its limit; a new transfer's address against the address's, one
 * try for each distinct name the message gives its beneficiary (at most two of each kind, one person: see readCodeIvms101).
 */
export class CodeInbound {
  constructor(
    private readonly deps: {
      orm: Orm;
      encryption: DataEncryption;
      networks: Pick<NetworkRegistry, 'any'>;
      /** Our CODE identity: entity id, legal name, and the box half of our key pair (seals and opens payloads). */
      self: { entityId: string; name: string; box: CodeBoxKey };
      retentionDays: number;
      rateLimits: RateLimits;
      /** The members we exchange with (TRAVEL_RULE_CODE_VASPS): whose transfers CODE's hub may ask the status of. */
      members: CodeVasp[];
      /**
       * The current public keys CODE lists for a member (Public Key Search, asked by the worker, which holds the
       * signing key: workflow `code-member-keys-<entityId>`).
       */
      memberKeys: (entityId: string) => Promise<Array<{ pubkey: string; until: number }>>;
    },
  ) {}

  /** Members' keys as last asked: kept until the first expires (an hour at most); an unknown key asks again. */
  private readonly keys = new Map<string, { pubkeys: Set<string>; until: number; askedAt: number }>();
  private readonly asking = new Map<string, Promise<void>>();

  /** Virtual Asset Address Search: `valid` for an address an active user of ours holds, `invalid` otherwise. */
  async verifyAddress(sender: CodeSender, body: { currency: string; payload: string }) {
    await this.count(sender);
    const reading = await this.open(sender, body.payload);
    // No name is tried here: the address's daily tries are spent by authorizations only.
    const address = addressWeServe(untagged(reading.beneficiaryAccounts[0]!));
    const holder = address ? await holderOf(this.deps.orm.em.fork(), address) : null;
    const active =
      holder !== null &&
      (await this.deps.orm.em.fork().findOne(UserEntity, { id: holder.userId }, { fields: ['status'] }))?.status ===
        'active';
    return active
      ? { result: 'valid', reasonType: '', reasonMsg: '', beneficiaryVaspEntityId: this.deps.self.entityId }
      : {
          result: 'invalid',
          reasonType: 'NOT_FOUND_ADDRESS',
          reasonMsg: 'no account of ours at this address',
          beneficiaryVaspEntityId: this.deps.self.entityId,
        };
  }

  /**
   * Asset Transfer Authorization: recorded once per (member, transferId); the same transferId again for the same
   * address and amount is answered as the first time, for another one it is DUPLICATED_TRANSFER_ID.
   */
  async authorize(
    sender: CodeSender,
    body: { transferId: string; currency: string; amount: string; payload: string; network?: string },
  ) {
    await this.count(sender);
    const em = this.deps.orm.em.fork();
    const counterpartVaspId = codeCounterpartId(sender.vasp);
    const reading = await this.open(sender, body.payload);
    const account = reading.beneficiaryAccounts[0]!;
    const asset = `code:${body.currency.toUpperCase()}`.slice(0, 40);
    const existing = await em.findOne(TravelRuleRecordEntity, {
      direction: 'inbound',
      counterpartVaspId,
      requestIdentifier: body.transferId,
    });
    if (existing) return this.decisionOf(sender, existing, body, reading);
    const address = addressWeServe(untagged(account));
    // Each distinct name the message tries is one of the address's daily tries (a message trying nothing spends one).
    if (address)
      await spendNameTries(this.deps.rateLimits, counterpartVaspId, address.key, reading.beneficiaryNameTries);
    const holder = address ? await holderOf(em, address) : null;
    const user = holder ? await em.findOne(UserEntity, { id: holder.userId }) : null;
    const verified = user?.status === 'active' ? this.deps.encryption.openText(user.nameSealed, user.id) : null;
    // Name validation defaults to false (CODE's 04-3): verified only when every condition holds.
    const matches = verified !== null && reading.beneficiaryNames.some((name) => sameCodeName(name, verified));
    // The currency must be one the account receives on a network it is deployed on, and on the network the sender
    // names when it names one (by our network id or its coin's symbol): nothing is approved onto a chain where the
    // account does not exist.
    const receivable =
      holder !== null &&
      holder.networkIds.some((id) => {
        const network = this.deps.networks.any(id);
        if (!network) return false;
        const coin = coinOf(network).symbol.toUpperCase();
        if (body.network && ![id.toUpperCase(), coin].includes(body.network.toUpperCase())) return false;
        const symbols = [coin, ...Object.keys(network.tokens ?? {}).map((t) => t.toUpperCase())];
        return symbols.includes(body.currency.toUpperCase());
      });
    const reason = !user
      ? 'rejected: unknown address'
      : user.status !== 'active'
        ? `rejected: account ${user.status}`
        : !matches
          ? 'rejected: beneficiary name mismatch'
          : !receivable
            ? `rejected: ${body.currency.toUpperCase().slice(0, 16)}${body.network ? ` on ${body.network.slice(0, 64)}` : ''} not received at this account`
            : reading.originatorNames.length === 0
              ? 'rejected: originator not named'
              : 'approved';
    const record = newTravelRuleRecord(
      em,
      { encryption: this.deps.encryption, retentionDays: this.deps.retentionDays },
      {
        direction: 'inbound',
        userId: user?.id ?? null,
        transferId: null,
        counterpartVaspId,
        counterpartVaspName: sender.vasp.name,
        networkId: holder?.networkId ?? (address?.kind === 'solana' ? 'SOLANA' : 'EVM'),
        address: (holder?.address ?? untagged(account) ?? account).slice(0, 128),
        status: 'answered',
        payload: reading.message,
        reason,
        requestIdentifier: body.transferId,
        asset,
        amount: body.amount.slice(0, 80),
      },
    );
    try {
      await em.flush();
    } catch (error) {
      // The same transfer twice at once (the hub retrying before our answer reached it): the first one recorded wins.
      if (!(error instanceof UniqueConstraintViolationException)) throw error;
      const first = await this.deps.orm.em.fork().findOneOrFail(TravelRuleRecordEntity, {
        direction: 'inbound',
        counterpartVaspId,
        requestIdentifier: body.transferId,
      });
      return this.decisionOf(sender, first, body, reading);
    }
    return this.decisionOf(sender, record, body, reading);
  }

  /** Report Transfer Result: the transaction id of a transfer we verified; the same one again is `normal`. */
  async reportTxid(sender: CodeSender, body: { transferId: string; txid: string; vout?: string }): Promise<CodeResult> {
    await this.count(sender);
    const record = await this.inboundRecord(sender, body.transferId);
    const answer = (reasonType: string) => resultOf(body.transferId, reasonType);
    if (record.reason !== 'approved' || record.canceled !== null) return answer('TRANSFER_ALREADY_FAILED');
    const txid = normalTxid(body.txid);
    if (record.txid !== null) return answer(record.txid === txid ? '' : 'TXID_ALREADY_EXISTS');
    // One transaction is one transfer's: a txid another authorization was told already is not this one's.
    const elsewhere = await this.deps.orm.em
      .fork()
      .count(TravelRuleRecordEntity, { direction: 'inbound', txid, recordId: { $ne: record.recordId } });
    if (elsewhere > 0) return answer('TXID_ALREADY_EXISTS');
    const claimed = await this.deps.orm.em
      .fork()
      .nativeUpdate(
        TravelRuleRecordEntity,
        { recordId: record.recordId, confirmedAt: null },
        { txid, confirmedAt: clock.date() },
      );
    return claimed === 0 ? this.reportTxid(sender, body) : answer('');
  }

  /** Finish Transfer: the originator will not send (or its transaction failed); after a txid it is ILLEGAL_STATEFLOW. */
  async finish(
    sender: CodeSender,
    body: { transferId: string; status: 'canceled'; reasonType?: string },
  ): Promise<CodeResult> {
    await this.count(sender);
    const record = await this.inboundRecord(sender, body.transferId);
    const answer = (reasonType: string) => resultOf(body.transferId, reasonType);
    // "An attempted change to the same state is considered a success."
    if (record.canceled !== null) return answer('');
    if (record.txid !== null) return answer('ILLEGAL_STATEFLOW');
    const claimed = await this.deps.orm.em
      .fork()
      .nativeUpdate(
        TravelRuleRecordEntity,
        { recordId: record.recordId, confirmedAt: null },
        { canceled: (body.reasonType || 'canceled').slice(0, 200), confirmedAt: clock.date() },
      );
    return claimed === 0 ? this.finish(sender, body) : answer('');
  }

  /**
   * Transaction Status Search: the state of a transfer we authorized with the asker, and its transaction id. CODE's
   * hub may ask about any of ours with a member: it relayed the authorization and the txid report (whose body is not
   * sealed), so it is told nothing it did not carry; no person's data is in the answer.
   */
  async transferStatus(sender: CodeSender, body: { transferId: string }) {
    await this.count(sender);
    const em = this.deps.orm.em.fork();
    const record = await em.findOne(TravelRuleRecordEntity, {
      direction: 'outbound',
      counterpartVaspId: sender.hub
        ? { $in: this.deps.members.map(codeCounterpartId) }
        : codeCounterpartId(sender.vasp),
      requestIdentifier: body.transferId,
    });
    const transfer = record?.transferId ? await em.findOne(TransferEntity, { transferId: record.transferId }) : null;
    if (!record || !transfer) throw new CodeRefusal('UNKNOWN_TRANSFER_ID', 'no transfer of ours with this transferId');
    // The chain's state first: a transaction sent is never reported canceled.
    const status: CodeTransferStatus =
      transfer.status === 'finalized'
        ? 'confirmed'
        : transfer.status === 'confirmed'
          ? 'wait-confirm'
          : transfer.status === 'submitted'
            ? 'processing'
            : transfer.status === 'failed' || record.canceled !== null
              ? 'canceled'
              : 'pending';
    return {
      transferId: body.transferId,
      status,
      txid: status === 'canceled' || status === 'pending' ? '' : (transfer.txHash ?? ''),
      vout: '',
    };
  }

  /** Search VASP by TXID: `valid` when we sent this transaction to this address. */
  async searchTxid(sender: CodeSender, body: { txid: string; beneficiaryAddress: string }) {
    await this.count(sender);
    const address = untagged(body.beneficiaryAddress);
    const sent = address ? await this.sentTransfers(body.txid, address) : [];
    return { result: sent.length > 0 ? 'valid' : 'invalid' };
  }

  /**
   * Asset Transfer Data Request: the Travel Rule data of a transaction we sent, as we announced it to the asker over
   * CODE (the IVMS101 message its authorization carried, sealed again for its key). Nothing is disclosed that the
   * asker was not told already: a transaction we did not announce to it (below the threshold, or to an address its
   * sender proved to control) is `LACK_OF_INFORMATION`; the address its payload names must be the transaction's, and
   * a txid that is several of our transfers to that address (one bundle) names none of them.
   */
  async transferData(
    sender: CodeSender,
    body: { transferId: string; txid: string; beneficiaryAddress: string; payload: string },
  ) {
    await this.count(sender);
    const theirs = await this.open(sender, body.payload);
    const refused = (reasonType: string, reasonMsg: string) => ({
      result: 'error',
      reasonType,
      reasonMsg,
      transferId: body.transferId,
    });
    const asked = untagged(body.beneficiaryAddress);
    const named = untagged(theirs.beneficiaryAccounts[0]!);
    if (!asked || !named || asked.toLowerCase() !== named.toLowerCase())
      throw new CodeRefusal(
        'INVALID_MSG_FIELD_VALUE',
        "the payload's Beneficiary.accountNumber is not beneficiaryAddress",
      );
    const sent = await this.sentTransfers(body.txid, asked);
    if (sent.length !== 1)
      return refused('NOT_FOUND_TXID', 'no single transaction of ours with this txid to this address');
    const transfer = sent[0]!;
    const record = await this.deps.orm.em.fork().findOne(TravelRuleRecordEntity, {
      transferId: transfer.transferId,
      direction: 'outbound',
      counterpartVaspId: codeCounterpartId(sender.vasp),
    });
    if (!record || record.status !== 'approved')
      return refused(
        'LACK_OF_INFORMATION',
        'this transaction was not announced to you over CODE: no Travel Rule data of it is given here',
      );
    const message = JSON.parse(
      this.deps.encryption.openText(record.payloadSealed, `travel-rule:${record.recordId}`),
    ) as Record<string, unknown>;
    return {
      result: 'normal',
      reasonType: '',
      reasonMsg: '',
      transferId: body.transferId,
      currency: transfer.token,
      amount: record.amount ?? '',
      historicalCost: '',
      tradePrice: transfer.valueKrw?.toString() ?? '',
      tradeCurrency: 'KRW',
      isExceedingThreshold: 'true',
      payload: await sealCodePayload(this.deps.self.box, sender.publicKey, { ivms101: message }),
    };
  }

  /** The answer to an authorization, as recorded: verified (our BeneficiaryVASP added, sealed) or denied. */
  private async decisionOf(
    sender: CodeSender,
    record: TravelRuleRecord,
    body: { transferId: string; amount: string; currency: string },
    reading: CodeIvms101Reading & { message: Record<string, unknown> },
  ) {
    const account = reading.beneficiaryAccounts[0]!;
    const sameAccount = record.address.toLowerCase() === (untagged(account) ?? account).toLowerCase();
    const sameMessage =
      this.deps.encryption.openText(record.payloadSealed, `travel-rule:${record.recordId}`) ===
      JSON.stringify(reading.message);
    if (
      !sameAccount ||
      !sameMessage ||
      record.amount !== body.amount.slice(0, 80) ||
      record.asset !== `code:${body.currency.toUpperCase()}`.slice(0, 40)
    )
      throw new CodeRefusal(
        'DUPLICATED_TRANSFER_ID',
        'this transferId was asked already for another transfer (address, amount, currency or message)',
      );
    if (record.reason !== 'approved')
      return {
        result: 'denied',
        // NOT_FOUND_ADDRESS as the address search says it (no active account of ours there); any other refusal in one
        // message: an authorization does not tell why a name did not match (our record keeps the real reason).
        reasonType: /^rejected: (unknown address|account )/.test(record.reason ?? '') ? 'NOT_FOUND_ADDRESS' : '',
        reasonMsg: 'beneficiary not confirmed',
        transferId: body.transferId,
        beneficiaryVasp: {},
      };
    const answer = { ...reading.message, BeneficiaryVASP: codeBeneficiaryVasp(this.deps.self) };
    return {
      result: 'verified',
      reasonType: '',
      reasonMsg: '',
      transferId: body.transferId,
      beneficiaryVasp: {},
      payload: await sealCodePayload(this.deps.self.box, sender.publicKey, { ivms101: answer }),
    };
  }

  private async inboundRecord(sender: CodeSender, transferId: string): Promise<TravelRuleRecord> {
    const record = await this.deps.orm.em.fork().findOne(TravelRuleRecordEntity, {
      direction: 'inbound',
      counterpartVaspId: codeCounterpartId(sender.vasp),
      requestIdentifier: transferId,
    });
    if (!record)
      throw new CodeRefusal('UNKNOWN_TRANSFER_ID', 'no transfer authorization of yours with this transferId');
    return record;
  }

  /** Our transfers with this transaction id to this address (the txid with or without 0x, any case), once sent. */
  private async sentTransfers(txid: string, address: string) {
    const hex = /^(0x)?[0-9a-fA-F]{64}$/.test(txid) ? `0x${txid.replace(/^0x/, '').toLowerCase()}` : null;
    const candidates = await this.deps.orm.em
      .fork()
      .find(TransferEntity, { txHash: { $in: [...new Set([txid, ...(hex ? [hex] : [])])] } });
    return candidates.filter(
      (t) =>
        (t.status === 'confirmed' || t.status === 'finalized') && t.toAddress.toLowerCase() === address.toLowerCase(),
    );
  }

  /**
   * Counts the message against its member's limit, then admits it only with a key CODE lists for that member: a
   * payload sealed with any other key is someone else's (the hub passes the sender's key on unsigned).
   */
  private async count(sender: CodeSender): Promise<void> {
    await this.deps.rateLimits.consume('travel-rule-counterpart', codeCounterpartId(sender.vasp));
    const { entityId } = sender.vasp;
    const now = clock.date().getTime();
    const kept = this.keys.get(entityId);
    const known = kept !== undefined && kept.until > now && kept.pubkeys.has(sender.publicKey);
    // Asked again when the keys expired, or for a key not seen (a rotation) once a minute at most.
    if (!known && (!kept || kept.until <= now || now - kept.askedAt >= 60_000)) await this.askKeys(entityId);
    if (!this.keys.get(entityId)?.pubkeys.has(sender.publicKey))
      throw new CodeRefusal(
        'UNACCEPTABLE_REQUEST',
        `X-Code-Req-PubKey is not a current key of code:${entityId} at CODE (Public Key Search)`,
      );
  }

  private askKeys(entityId: string): Promise<void> {
    let asking = this.asking.get(entityId);
    if (!asking) {
      asking = (async () => {
        const now = clock.date().getTime();
        const keys = (await this.deps.memberKeys(entityId)).filter((k) => k.until > now);
        this.keys.set(entityId, {
          pubkeys: new Set(keys.map((k) => k.pubkey)),
          until: Math.min(now + 3_600_000, ...keys.map((k) => k.until)),
          askedAt: now,
        });
      })().finally(() => this.asking.delete(entityId));
      this.asking.set(entityId, asking);
    }
    return asking;
  }

  /** The sealed IVMS101 payload, opened and read. */
  private async open(
    sender: CodeSender,
    payload: string,
  ): Promise<CodeIvms101Reading & { message: Record<string, unknown> }> {
    const message = await this.openMessage(sender, payload);
    try {
      return { ...readCodeIvms101(message), message };
    } catch (error) {
      if (!(error instanceof CodeIvms101Invalid)) throw error;
      throw new CodeRefusal(
        error.missing ? 'MISSING_REQUIRED_MSG_FIELD' : 'INVALID_MSG_FIELD_VALUE',
        `ivms101: ${error.message}`,
      );
    }
  }

  private async openMessage(sender: CodeSender, payload: string): Promise<Record<string, unknown>> {
    let opened: unknown;
    try {
      opened = await openCodePayload(this.deps.self.box, sender.publicKey, payload);
    } catch {
      throw new CodeRefusal(
        'INVALID_ENCRYPTED_BODY',
        'the payload does not open with our key and the sender key (X-Code-Req-PubKey)',
      );
    }
    const message = objectAt(opened, 'ivms101');
    if (!message) throw new CodeRefusal('MISSING_REQUIRED_MSG_FIELD', 'the payload has no ivms101 object');
    if (depthOf(message) > 16)
      throw new CodeRefusal('INVALID_MSG_FIELD_VALUE', 'the ivms101 message is nested deeper than IVMS101 goes');
    return message;
  }
}

/**
 * An account as CODE writes it (`address:tag`) as the address we could hold: ours carry no tag or memo, so an account
 * with one is none of ours (undefined); `address:` with an empty tag is the address.
 */
const untagged = (account: string): string | undefined => {
  const [address, tag, ...more] = account.split(':');
  return tag || more.length ? undefined : address;
};

/** A txid as we keep it: an EVM hash (with or without 0x, any case) as 0x and lower case; others as given. */
const normalTxid = (txid: string): string =>
  /^(0x)?[0-9a-fA-F]{64}$/.test(txid) ? `0x${txid.replace(/^0x/, '').toLowerCase()}` : txid.slice(0, 128);

/** A CODE member as our records name the counterpart: `code:{entityId}` (as outbound records do). */
export const codeCounterpartId = (vasp: CodeVasp): string => `code:${vasp.entityId}`;

/** How deeply a JSON value nests (counted without recursion: a payload may nest far deeper than the stack goes). */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [at, depth] = stack.pop()!;
    if (at === null || typeof at !== 'object') continue;
    deepest = Math.max(deepest, depth);
    if (deepest > 64) return deepest;
    for (const child of Object.values(at)) stack.push([child, depth + 1]);
  }
  return deepest;
}

const objectAt = (value: unknown, key: string): Record<string, unknown> | undefined => {
  const found = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return found !== null && typeof found === 'object' && !Array.isArray(found)
    ? (found as Record<string, unknown>)
    : undefined;
};

/** A rate-limit refusal (429) as CODE's error form: the hub passes it to the sender. */
export function codeRefusalOf(error: unknown): CodeRefusal | undefined {
  if (error instanceof CodeRefusal) return error;
  if (error instanceof HttpError && error.status === 429)
    return new CodeRefusal('UNACCEPTABLE_REQUEST', error.detail ?? 'over the limit of Travel Rule messages');
  return undefined;
}
