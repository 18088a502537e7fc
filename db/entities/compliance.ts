import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { clock } from '../../platform/clock';

/**
 * A sanctions list as last read from its source (one row per source, e.g. ofac-sdn): the list's own date, when it was
 * read, how many addresses it gave and the digest of what was read. A refresh replaces the list's addresses and this
 * row in one transaction.
 */
export const SanctionsListEntity = defineEntity({
  name: 'SanctionsList',
  tableName: 'sanctions_lists',
  properties: (p) => ({
    source: p.string().primary().length(32),
    /** The publication date the list states (SDN: DateOfIssue). */
    listDate: p.string().length(10),
    refreshedAt: p.datetime(),
    addressCount: p.integer(),
    sha256: p.string().length(64),
    sourceUrl: p.text(),
  }),
});
export type SanctionsList = InferEntity<typeof SanctionsListEntity>;

/** One listed address. `addressKey`: lower case for EVM (checksum case is not part of the address), else as listed. */
export const SanctionedAddressEntity = defineEntity({
  name: 'SanctionedAddress',
  tableName: 'sanctioned_addresses',
  properties: (p) => ({
    source: p.string().primary().length(32),
    addressKey: p.string().primary().length(128),
    /** The list's asset tags for it (e.g. "ETH,USDT"). */
    assets: p.string().length(200),
  }),
});
export type SanctionedAddress = InferEntity<typeof SanctionedAddressEntity>;

export const CASE_KINDS = [
  'sanctions_hit',
  'structuring',
  'fan_out',
  'new_recipient_large',
  'new_device_large',
] as const;
export type CaseKind = (typeof CASE_KINDS)[number];

/**
 * A compliance case an operator decides: opened by a sanctions hit or a monitoring rule, about a user and (when there
 * is one) a transfer. `openKey` is set while the case is open, so the same finding on retries opens one case; it is
 * cleared when decided. Kept COMPLIANCE_RETENTION_DAYS after it is closed, account closure or not.
 */
export const ComplianceCaseEntity = defineEntity({
  name: 'ComplianceCase',
  tableName: 'compliance_cases',
  // The operators' list pages newest first, whole or by status or user (api/compliance/service.ts, its keyset order).
  indexes: [
    { name: 'compliance_cases_opened_at_case_id_index', properties: ['openedAt', 'caseId'] },
    { name: 'compliance_cases_status_opened_at_case_id_index', properties: ['status', 'openedAt', 'caseId'] },
    { name: 'compliance_cases_user_id_opened_at_case_id_index', properties: ['userId', 'openedAt', 'caseId'] },
  ],
  properties: (p) => ({
    caseId: p.string().primary().length(64),
    userId: p.string().length(64).index(),
    kind: p.enum([...CASE_KINDS]),
    status: p.enum(['open', 'approved', 'rejected', 'closed'] as const),
    openKey: p.string().length(300).nullable().unique(),
    transferId: p.string().length(64).nullable().index(),
    networkId: p.string().length(32).nullable(),
    address: p.string().length(128).nullable(),
    /** Where the finding came from (ofac-sdn, screening-provider, a rule) and what it said: for operators only. */
    source: p.string().length(64),
    programme: p.string().length(200).nullable(),
    /** What a monitoring rule saw (amounts, counts, times); no personal data. */
    detail: p.text().nullable(),
    /** Where it was found: prepare, execute, address-book, workflow. */
    foundAt: p.string().length(32),
    openedAt: p.datetime().onCreate(() => clock.date()),
    decidedAt: p.datetime().nullable(),
    decidedBy: p.string().length(128).nullable(),
    reason: p.text().nullable(),
  }),
});
export type ComplianceCase = InferEntity<typeof ComplianceCaseEntity>;

/**
 * One Travel Rule exchange with another provider: outbound (our user's transfer, the IVMS101 we sent and the answer)
 * or inbound (a provider asking about one of our users' addresses, and what we answered). The IVMS101 payload is
 * sealed (AAD `travel-rule:<recordId>`). Kept until retainUntil (COMPLIANCE_RETENTION_DAYS after it was made), whether
 * or not the account is closed.
 */
export const TravelRuleRecordEntity = defineEntity({
  name: 'TravelRuleRecord',
  tableName: 'travel_rule_records',
  // A counterpart's inquiry is found again by its request-identifier (a retry), and recorded once.
  uniques: [
    { name: 'travel_rule_records_request_unique', properties: ['direction', 'counterpartVaspId', 'requestIdentifier'] },
  ],
  properties: (p) => ({
    recordId: p.string().primary().length(64),
    direction: p.enum(['outbound', 'inbound'] as const),
    userId: p.string().length(64).nullable().index(),
    transferId: p.string().length(64).nullable().unique(),
    counterpartVaspId: p.string().length(128),
    counterpartVaspName: p.string().length(300),
    networkId: p.string().length(32),
    address: p.string().length(128),
    status: p.enum(['pending', 'approved', 'rejected', 'timed_out', 'failed', 'answered'] as const),
    payloadSealed: p.text(),
    reason: p.text().nullable(),
    requestIdentifier: p.string().length(64),
    /** What the inquiry said is sent: `slip0044:ETH`, `dti:...` (TRP asset), and the amount in whole units. */
    asset: p.string().length(64).nullable(),
    amount: p.string().length(80).nullable(),
    /** The TRP transfer confirmation: the transaction id, or why the transfer was canceled, and when it came. */
    txid: p.string().length(128).nullable().index(),
    canceled: p.text().nullable(),
    confirmedAt: p.datetime().nullable(),
    requestedAt: p.datetime(),
    decidedAt: p.datetime().nullable(),
    retainUntil: p.datetime(),
  }),
});
export type TravelRuleRecord = InferEntity<typeof TravelRuleRecordEntity>;
