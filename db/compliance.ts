import { randomUUID } from 'node:crypto';
import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/core';
import type { Orm } from './orm';
import {
  ComplianceCaseEntity,
  TravelRuleRecordEntity,
  type CaseKind,
  type TravelRuleRecord,
  type ComplianceCase,
} from './entities';
import { appendEvent } from './events';
import { HotStatement } from './sql';
import { clock } from '../platform/clock';
import type { DataEncryption } from '../platform/data-encryption';

export interface NewCase {
  userId: string;
  kind: CaseKind;
  transferId?: string | null;
  networkId?: string | null;
  address?: string | null;
  source: string;
  programme?: string | null;
  foundAt: string;
  detail?: string | null;
}

/**
 * Opens a compliance case and writes compliance.case_opened in the same transaction. The same finding (kind, user,
 * transfer or network and address) while a case of it is open answers that case: a retried request opens no second one.
 */
export async function openCase(orm: Orm, finding: NewCase): Promise<{ caseId: string; opened: boolean }> {
  const openKey = [
    finding.kind,
    finding.userId,
    finding.transferId ?? '',
    finding.networkId ?? '',
    finding.address ?? '',
  ].join(':');
  const existing = await orm.em.fork().findOne(ComplianceCaseEntity, { openKey });
  if (existing) return { caseId: existing.caseId, opened: false };
  const caseId = `case_${randomUUID()}`;
  try {
    await orm.em.fork().transactional(async (tx) => {
      tx.create(ComplianceCaseEntity, {
        caseId,
        userId: finding.userId,
        kind: finding.kind,
        status: 'open',
        openKey,
        transferId: finding.transferId ?? null,
        networkId: finding.networkId ?? null,
        address: finding.address ?? null,
        source: finding.source,
        programme: finding.programme ?? null,
        foundAt: finding.foundAt,
        detail: finding.detail ?? null,
        decidedAt: null,
        decidedBy: null,
        reason: null,
      });
      await tx.flush();
      await appendEvent(tx, {
        type: 'compliance.case_opened',
        resourceId: caseId,
        userId: finding.userId,
        data: {
          caseId,
          kind: finding.kind,
          transferId: finding.transferId ?? null,
          programme: finding.programme ?? null,
        },
      });
    });
    return { caseId, opened: true };
  } catch (error) {
    if (!(error instanceof UniqueConstraintViolationException)) throw error;
    const raced = await orm.em.fork().findOneOrFail(ComplianceCaseEntity, { openKey });
    return { caseId: raced.caseId, opened: false };
  }
}

export const caseView = (c: ComplianceCase) => ({
  caseId: c.caseId,
  userId: c.userId,
  kind: c.kind,
  status: c.status,
  transferId: c.transferId ?? null,
  networkId: c.networkId ?? null,
  address: c.address ?? null,
  source: c.source,
  programme: c.programme ?? null,
  detail: c.detail ?? null,
  foundAt: c.foundAt,
  openedAt: c.openedAt.toISOString(),
  decidedAt: c.decidedAt?.toISOString() ?? null,
  decidedBy: c.decidedBy ?? null,
  reason: c.reason ?? null,
});

/**
 * The list's state and an address's entry in one statement (every transfer screens twice, in the api and before it is
 * signed): a prepared statement on PostgreSQL, no entity mapped. No row: no list stored.
 */
const SCREENING_READ = new HotStatement<{
  list_date: string;
  refreshed_at: number | string;
  address_count: number | string;
  assets: string | null;
}>(
  'sanctions-screening-read',
  'select l.list_date, l.refreshed_at, l.address_count, a.assets from sanctions_lists l ' +
    'left join sanctioned_addresses a on a.source = l.source and a.address_key = ? where l.source = ?',
);

/** The stored SDN list as screening reads it (`SanctionsScreening`'s read). */
export const storedSanctionsList = (orm: Orm, source = 'ofac-sdn') => ({
  read: async (
    key: string,
  ): Promise<{
    state: { listDate: string; refreshedAt: Date; addressCount: number } | null;
    assets: string[] | null;
  }> => {
    const em = orm.em.fork();
    const row = await SCREENING_READ.row(em, [key, source]);
    if (!row) return { state: null, assets: null };
    // As the ORM reads the column: PostgreSQL's text of a timestamptz, SQLite's stored milliseconds.
    const stored = row.refreshed_at;
    const refreshedAt = em
      .getPlatform()
      .parseDate(typeof stored === 'string' && /^\d+$/.test(stored) ? Number(stored) : stored) as Date;
    return {
      state: { listDate: row.list_date, refreshedAt, addressCount: Number(row.address_count) },
      assets: row.assets === null ? null : row.assets.split(','),
    };
  },
});

/**
 * A Travel Rule record as every exchange is kept (not yet flushed): its id, the IVMS101 payload sealed under
 * `travel-rule:<recordId>`, requested (and, unless given, decided) now, kept `retentionDays`.
 */
export function newTravelRuleRecord(
  em: EntityManager,
  seal: { encryption: DataEncryption; retentionDays: number },
  fields: Omit<
    TravelRuleRecord,
    'recordId' | 'payloadSealed' | 'requestedAt' | 'decidedAt' | 'retainUntil' | 'txid' | 'canceled' | 'confirmedAt'
  > & { payload: unknown; decidedAt?: Date | null; txid?: string | null; confirmedAt?: Date | null },
): TravelRuleRecord {
  const { payload, ...rest } = fields;
  const recordId = `trr_${randomUUID()}`;
  const now = clock.date();
  return em.create(TravelRuleRecordEntity, {
    txid: null,
    canceled: null,
    confirmedAt: null,
    decidedAt: now,
    ...rest,
    recordId,
    payloadSealed: seal.encryption.sealText(JSON.stringify(payload), `travel-rule:${recordId}`),
    requestedAt: now,
    retainUntil: new Date(now.getTime() + seal.retentionDays * 86_400_000),
  });
}
