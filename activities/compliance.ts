import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import type { Orm } from '../db/orm';
import {
  KycBasicInfoEntity,
  RegistrationEntity,
  TransferEntity,
  TravelRuleRecordEntity,
  UserEntity,
  openPassResult,
  type CaseKind,
  type Transfer,
} from '../db/entities';
import { newTravelRuleRecord, openCase } from '../db/compliance';
import { ScreeningUnavailable, type SanctionsScreening } from '../integrations/sanctions';
import { ivms101Message, type PersonName } from '../integrations/travel-rule/ivms101';
import { sameAccount, type TravelRuleCounterpart, type TrpClient } from '../integrations/travel-rule/trp';
import type { CodeClient } from '../integrations/travel-rule/code/client';
import { codeIvms101Message } from '../integrations/travel-rule/code/ivms101';
import { trpAssetOf } from '../integrations/travel-rule/assets';
import { CODE_HUB, counterpartAt, type CodeVasp } from '../integrations/travel-rule/counterparts';
import type { NetworkRegistry } from '../platform/networks';
import type { DataEncryption } from '../platform/data-encryption';
import { formatMoney } from '../platform/money';
import { TransferFailure } from '../platform/failures';
import { clock } from '../platform/clock';

export interface ComplianceActivityDeps {
  orm: Orm;
  sanctions: SanctionsScreening;
  encryption: DataEncryption;
  /** The Travel Rule network: the VASPs we exchange with and our TRP client (absent: no TLS identity configured). */
  travelRule: {
    counterparts: TravelRuleCounterpart[];
    trp?: TrpClient;
    /** CODE's network: our client of its hub, and its members we exchange with. */
    code?: { client: CodeClient; vasps: CodeVasp[] };
  };
  networks: NetworkRegistry;
  /** Who we are in Travel Rule messages (TRAVEL_RULE_VASP_ID, TRAVEL_RULE_VASP_NAME), and how long records are kept. */
  vasp: { id: string; name: string };
  retentionDays: number;
}

export const createComplianceActivities = (deps: ComplianceActivityDeps) => ({
  /**
   * The last screening, just before the transfer is signed (the list may have changed since the API screened it). A
   * hit fails the transfer (RecipientSanctioned, nothing signed) and opens a case; a screening that cannot answer is
   * retried by the workflow and, past its attempts, refuses the transfer (ScreeningUnavailable): never signed unscreened.
   */
  /** The case of a transfer a monitoring rule held (once: the same transfer and kind answer the same case). */
  async openReviewCase(input: { transferId: string; kind: string; detail: string }): Promise<{ caseId: string }> {
    const transfer = await deps.orm.em.fork().findOneOrFail(TransferEntity, { transferId: input.transferId });
    const { caseId } = await openCase(deps.orm, {
      userId: transfer.userId,
      kind: input.kind as CaseKind,
      transferId: transfer.transferId,
      networkId: transfer.networkId,
      address: transfer.toAddress,
      source: 'monitoring',
      programme: null,
      foundAt: 'execute',
      detail: input.detail,
    });
    return { caseId };
  },

  /** An approved held transfer goes on: held_for_review -> processing. */
  async releaseHeldTransfer(input: { transferId: string }): Promise<void> {
    await deps.orm.em
      .fork()
      .nativeUpdate(
        TransferEntity,
        { transferId: input.transferId, status: 'held_for_review' },
        { status: 'processing' },
      );
  },

  async screenTransferRecipient(input: { transferId: string }, read?: Transfer): Promise<void> {
    // `read`: the row as prepareTransfer read it in this attempt (one read for its screening and its signing).
    const transfer = read ?? (await deps.orm.em.fork().findOneOrFail(TransferEntity, { transferId: input.transferId }));
    let result: Awaited<ReturnType<SanctionsScreening['screen']>>;
    try {
      result = await deps.sanctions.screen(transfer.toAddress);
    } catch (error) {
      if (error instanceof ScreeningUnavailable)
        throw ApplicationFailure.create({ type: TransferFailure.ScreeningUnavailable, message: error.message });
      throw error;
    }
    if (!result.listed) return;
    await openCase(deps.orm, {
      userId: transfer.userId,
      kind: 'sanctions_hit',
      transferId: transfer.transferId,
      networkId: transfer.networkId,
      address: transfer.toAddress,
      source: result.source,
      programme: result.programme,
      foundAt: 'workflow',
    });
    throw ApplicationFailure.create({
      type: TransferFailure.RecipientSanctioned,
      nonRetryable: true,
      details: [{ programme: result.programme }],
      message: `This address cannot receive transfers from this service (sanctions screening: ${result.programme}). Nothing was sent.`,
    });
  },
});

/** The Travel Rule's side of a transfer: the inquiry to the receiving provider, and what it answered. */
export const createTravelRuleActivities = (deps: ComplianceActivityDeps) => {
  const { orm, encryption } = deps;

  /** The originator's name: the verified Korean name, and the romanized one from basic-info when the user gave it. */
  const originatorName = async (userId: string): Promise<PersonName> => {
    const user = await orm.em.fork().findOneOrFail(UserEntity, { id: userId });
    const local = encryption.openText(user.nameSealed, userId);
    const info = await orm.em.fork().findOne(KycBasicInfoEntity, { userId });
    try {
      if (info)
        return {
          local,
          latin: {
            surname: encryption.openText(info.engSurnameSealed, `eng-name:${userId}`),
            given: encryption.openText(info.engNameSealed, `eng-name:${userId}`),
          },
        };
    } catch {
      /* a row not sealed yet: the local name alone */
    }
    return { local };
  };

  /**
   * The outbound record of a transfer's Travel Rule message and the message itself: written once (payload sealed,
   * kept `retentionDays`); a retry finds it and sends the same message again under the same request identifier.
   */
  const outboundRecord = async (
    transfer: Transfer,
    counterpart: { id: string; name: string },
    what: { asset: string; amount: string },
    build: () => Promise<Record<string, unknown>>,
  ) => {
    const em = orm.em.fork();
    const found = await em.findOne(TravelRuleRecordEntity, { transferId: transfer.transferId });
    if (found)
      return {
        record: found,
        message: JSON.parse(encryption.openText(found.payloadSealed, `travel-rule:${found.recordId}`)) as Record<
          string,
          unknown
        >,
      };
    const message = await build();
    const record = newTravelRuleRecord(
      em,
      { encryption, retentionDays: deps.retentionDays },
      {
        direction: 'outbound',
        userId: transfer.userId,
        transferId: transfer.transferId,
        counterpartVaspId: counterpart.id,
        counterpartVaspName: counterpart.name,
        networkId: transfer.networkId,
        address: transfer.toAddress,
        status: 'pending',
        payload: message,
        reason: null,
        requestIdentifier: randomUUID(),
        asset: what.asset,
        amount: what.amount,
        decidedAt: null,
      },
    );
    await em.flush();
    return { record, message };
  };

  /** The originator's birth date, as the identity verification at registration gave it (CODE requires it). */
  const originatorBirthDate = async (userId: string): Promise<string> => {
    const user = await orm.em.fork().findOneOrFail(UserEntity, { id: userId });
    const registration = await orm.em.fork().findOne(RegistrationEntity, { regId: user.regId });
    const { birthDate } = openPassResult(encryption, user.regId, registration?.passResultSealed ?? '');
    return birthDate ?? '';
  };

  /**
   * CODE's transfer authorization: the IVMS101 message (CODE's form) sealed for the beneficiary exchange, through
   * CODE's hub, answered at once (verified or denied). Once per transfer: a retry sends the same message under the
   * same transferId (the record's request identifier, a UUID v4), which the exchange takes as a repeat.
   */
  const sendCodeAuthorization = async (
    transfer: Transfer,
    refuse: (message: string) => ApplicationFailure,
  ): Promise<{
    recordId: string;
    sent: boolean;
    decision?: { approved: boolean; reason: string | null; callback?: string | null };
  }> => {
    const rule = transfer.travelRule!;
    const code = deps.travelRule.code;
    const vasp = code?.vasps.find((v) => v.entityId === rule.vaspId);
    if (!code || !vasp)
      throw refuse(`${rule.vaspName} is no longer an exchange we exchange Travel Rule data with on CODE`);
    if (!transfer.valueKrw) throw refuse('the transfer has no won value to declare to CODE');
    const amount = formatMoney(BigInt(transfer.amount), transfer.decimals, '').trim().replace(/,/g, '');
    const { record, message } = await outboundRecord(
      transfer,
      { id: `code:${rule.vaspId}`, name: rule.vaspName },
      { asset: `code:${transfer.token}`, amount },
      async () =>
        codeIvms101Message({
          originator: {
            name: await originatorName(transfer.userId),
            birthDate: await originatorBirthDate(transfer.userId),
            customerId: transfer.userId,
            account: transfer.fromAddress,
          },
          beneficiary: {
            name: encryption.openText(rule.beneficiaryNameSealed, `beneficiary:${transfer.transferId}`),
            account: transfer.toAddress,
          },
          originatingVasp: deps.vasp,
        }),
    );
    const decision = await code.client.authorizeTransfer(rule.vaspId, {
      transferId: record.requestIdentifier,
      currency: transfer.token,
      amount,
      tradePrice: transfer.valueKrw.toString(),
      tradeCurrency: 'KRW',
      isExceedingThreshold: true,
      ivms101: message,
    });
    const sent = { recordId: record.recordId, sent: true };
    if (!decision.verified)
      return {
        ...sent,
        decision: {
          approved: false,
          reason: [decision.reasonType, decision.reasonMsg].filter(Boolean).join(': ').slice(0, 500) || 'denied',
        },
      };
    // Told the transaction id once sent (CODE's Report Transfer Result): the "callback" names the exchange on CODE.
    return { ...sent, decision: { approved: true, reason: null, callback: `code:${rule.vaspId}` } };
  };

  return {
    /**
     * The current public keys CODE lists for one of our members, or for CODE's own entity (Public Key Search, a signed
     * request: the signing key is the worker's), for the API's Response API to tell a member's payloads, or the hub's,
     * from anyone else's. At most an hour.
     */
    async codeMemberKeys(input: { entityId: string }): Promise<Array<{ pubkey: string; until: number }>> {
      const code = deps.travelRule.code;
      const known = input.entityId === CODE_HUB.entityId || code?.vasps.some((v) => v.entityId === input.entityId);
      if (!code || !known)
        throw ApplicationFailure.create({
          nonRetryable: true,
          message: `${input.entityId} is neither CODE's own entity nor a member of TRAVEL_RULE_CODE_VASPS`,
        });
      const keys = await code.client.publicKeysOf(input.entityId);
      const latest = clock.date().getTime() + 3_600_000;
      return keys.map((k) => ({ pubkey: k.pubkey, until: Math.min(k.until, latest) }));
    },

    /**
     * Sends the transfer's Travel Rule inquiry (TRP v3, IVMS101 in the form the VASP reads) to the URL its Travel
     * Address names and records it (payload sealed). Once per transfer: a retry finds the record and sends the same
     * message again under the same request-identifier, which the VASP takes as a repeat. Answers the resolution the
     * VASP gave at once (approved with its confirmation URL, or rejected), or none when it decides later, at our
     * callback. An approval naming another address than the transfer's is a rejection.
     */
    async sendTravelRuleInquiry(input: { transferId: string }): Promise<{
      recordId: string;
      sent: boolean;
      reason?: string;
      decision?: { approved: boolean; reason: string | null; callback?: string | null };
    }> {
      const transfer = await orm.em.fork().findOneOrFail(TransferEntity, { transferId: input.transferId });
      const rule = transfer.travelRule;
      const refuse = (message: string) =>
        ApplicationFailure.create({ type: TransferFailure.TransferRefused, nonRetryable: true, message });
      if (!rule) throw refuse('the Travel Rule was not recorded for this transfer');
      if (rule.network === 'code') return sendCodeAuthorization(transfer, refuse);
      const counterpart = deps.travelRule.counterparts.find((c) => c.id === rule.vaspId);
      if (!counterpart) throw refuse(`${rule.vaspName} is no longer a VASP we exchange Travel Rule data with`);
      if (!deps.travelRule.trp) throw refuse('no Travel Rule TLS identity is configured (TRAVEL_RULE_TLS_*)');
      const network = deps.networks.any(transfer.networkId);
      const asset = network && trpAssetOf(network, transfer.token);
      if (!asset) throw refuse(`${transfer.token} on ${transfer.networkId} has no Travel Rule identifier`);
      const amount = formatMoney(BigInt(transfer.amount), transfer.decimals, '').trim().replace(/,/g, '');
      const { record, message } = await outboundRecord(
        transfer,
        { id: rule.vaspId, name: rule.vaspName },
        { asset: 'dti' in asset ? `dti:${asset.dti}` : `slip0044:${asset.slip0044}`, amount },
        async () =>
          ivms101Message(
            {
              originator: {
                name: await originatorName(transfer.userId),
                customerId: transfer.userId,
                account: transfer.fromAddress,
              },
              beneficiary: {
                name: encryption.openText(rule.beneficiaryNameSealed, `beneficiary:${transfer.transferId}`),
                account: transfer.toAddress,
              },
              originatingVasp: deps.vasp,
              beneficiaryVasp: { id: rule.vaspId, name: rule.vaspName },
            },
            counterpart.ivms101,
          ),
      );
      const resolution = await deps.travelRule.trp.inquiry(counterpart, rule.trpUrl, {
        requestIdentifier: record.requestIdentifier,
        asset,
        amount,
        callback: rule.callbackUrl,
        ivms101: message,
      });
      const sent = { recordId: record.recordId, sent: true };
      if (resolution.kind === 'pending') return sent;
      if (resolution.kind === 'rejected') return { ...sent, decision: { approved: false, reason: resolution.reason } };
      if (!sameAccount(resolution.address, transfer.toAddress))
        return {
          ...sent,
          decision: {
            approved: false,
            reason: `${counterpart.name} approved another address (${resolution.address.slice(0, 128)}) than the transfer's`,
          },
        };
      return { ...sent, decision: { approved: true, reason: null, callback: resolution.callback } };
    },

    /**
     * TRP transfer confirmation: the transaction id to the URL the beneficiary VASP named in its approval, sent only
     * to that VASP's own origin (a counterpart cannot make the worker call anywhere else), over mutual TLS.
     */
    async confirmTravelRuleTransfer(input: { transferId: string; callback: string; txHash: string }): Promise<void> {
      const transfer = await orm.em.fork().findOneOrFail(TransferEntity, { transferId: input.transferId });
      const record = await orm.em.fork().findOneOrFail(TravelRuleRecordEntity, { transferId: input.transferId });
      if (transfer.travelRule?.network === 'code') {
        // CODE's Report Transfer Result, to the exchange the authorization went to (and no other).
        const code = deps.travelRule.code;
        if (!code || input.callback !== `code:${transfer.travelRule.vaspId}`)
          throw ApplicationFailure.create({
            nonRetryable: true,
            message: `the transaction id is for ${transfer.travelRule.vaspName} on CODE; not reported elsewhere`,
          });
        const reported = await code.client.reportTxid(transfer.travelRule.vaspId, {
          transferId: record.requestIdentifier,
          txid: input.txHash,
        });
        // TXID_ALREADY_EXISTS with our own txid is a repeat of this report.
        if (reported.result !== 'normal' && reported.reasonType !== 'TXID_ALREADY_EXISTS')
          throw ApplicationFailure.create({
            nonRetryable: true,
            message: `CODE did not take the transaction id (${reported.reasonType ?? reported.result})`,
          });
        await orm.em
          .fork()
          .nativeUpdate(
            TravelRuleRecordEntity,
            { recordId: record.recordId, confirmedAt: null },
            { txid: input.txHash, confirmedAt: clock.date() },
          );
        return;
      }
      const counterpart = deps.travelRule.counterparts.find((c) => c.id === transfer.travelRule?.vaspId);
      const onItsOrigin = (() => {
        try {
          return counterpart !== undefined && new URL(input.callback).origin === counterpart.origin;
        } catch {
          return false;
        }
      })();
      if (!onItsOrigin || !deps.travelRule.trp)
        throw ApplicationFailure.create({
          nonRetryable: true,
          message: `the confirmation URL is not on ${transfer.travelRule?.vaspName ?? 'the VASP'}'s TRP origin; not called`,
        });
      await deps.travelRule.trp.confirm(counterpart!, input.callback, {
        requestIdentifier: record.requestIdentifier,
        txid: input.txHash,
      });
      await orm.em
        .fork()
        .nativeUpdate(
          TravelRuleRecordEntity,
          { recordId: record.recordId, confirmedAt: null },
          { txid: input.txHash, confirmedAt: clock.date() },
        );
    },

    /**
     * Our resolution of an inbound inquiry, to its callback: for travel-rule-answer workflows started before inquiries
     * were resolved in their answer (TRP v3 over mutual TLS, to the counterpart at the callback's origin only).
     */
    async answerTravelRuleInquiry(input: {
      callback: string;
      requestIdentifier: string;
      approved: { address: string } | null;
      rejected: string | null;
    }): Promise<void> {
      const counterpart = counterpartAt(deps.travelRule.counterparts, input.callback);
      if (!counterpart || !deps.travelRule.trp)
        throw ApplicationFailure.create({
          nonRetryable: true,
          message: 'the callback is on no VASP we exchange Travel Rule data with; not called',
        });
      await deps.travelRule.trp.resolve(
        counterpart,
        input.callback,
        input.requestIdentifier,
        input.approved
          ? { approved: { address: input.approved.address, callback: input.callback } }
          : { rejected: input.rejected ?? 'beneficiary not confirmed' },
      );
    },

    /** What became of the inquiry: approved, rejected (with the provider's reason) or timed out. Written once. */
    async recordTravelRuleOutcome(input: {
      transferId: string;
      status: 'approved' | 'rejected' | 'timed_out';
      reason: string | null;
    }): Promise<void> {
      await orm.em
        .fork()
        .nativeUpdate(
          TravelRuleRecordEntity,
          { transferId: input.transferId, status: 'pending' },
          { status: input.status, reason: input.reason, decidedAt: clock.date() },
        );
    },
  };
};

export type TravelRuleActivities = ReturnType<typeof createTravelRuleActivities>;

export type ComplianceActivities = ReturnType<typeof createComplianceActivities>;
