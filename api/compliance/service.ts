import { randomUUID } from 'node:crypto';
import { timingSafeEqual } from 'node:crypto';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Orm } from '../../db/orm';
import { ComplianceCaseEntity, TransferEntity, TravelRuleRecordEntity, type ComplianceCase } from '../../db/entities';
import type { DataEncryption } from '../../platform/data-encryption';
import { caseView } from '../../db/compliance';
import { sanctionsListState } from '../../db/sanctions-list';
import { ormResidentDatabase } from '../../db/sql';
import { OFAC_SDN } from '../../integrations/sanctions';
import { sanctionsListRefreshWorkflow } from '../../workflows/compliance';
import {
  complianceDecisionSignal,
  sanctionsScheduleId,
  transferWorkflowId,
  travelRuleDecisionSignal,
} from '../../workflows/messages';
import { appendEvent } from '../../db/events';
import { LockMode } from '@mikro-orm/core';
import { HttpError, problems } from '../http/problems';
import {
  isAcceptedTrpVersion,
  parseResolution,
  sameAccount,
  type TravelRuleCounterpart,
} from '../../integrations/travel-rule/trp';
import { clock } from '../../platform/clock';
import { findPage, type KeysetOrder, type PageRequest } from '../http/pagination';

const CASE_ORDER: KeysetOrder<'openedAt' | 'caseId'> = {
  list: 'compliance-cases',
  fields: ['openedAt', 'caseId'],
  kinds: ['date', 'string'],
  order: 'desc',
};

/** What operators see of compliance: the sanctions list's state, its refresh, and the cases screening opened. */
export class ComplianceService {
  constructor(
    private readonly deps: {
      orm: Orm;
      temporal: Client;
      encryption: DataEncryption;
      taskQueue: string;
      maxListAgeHours: number;
      providerConfigured: boolean;
    },
  ) {}

  /** The schedule's id as the worker creates it (worker/schedules.ts). */
  get scheduleId(): string {
    return sanctionsScheduleId(this.deps.taskQueue);
  }

  async sanctionsList() {
    const state = await sanctionsListState(ormResidentDatabase(this.deps.orm), OFAC_SDN.source);
    const staleAfter = state ? new Date(state.refreshedAt.getTime() + this.deps.maxListAgeHours * 3600_000) : null;
    return {
      source: 'ofac-sdn' as const,
      listDate: state?.listDate ?? null,
      refreshedAt: state?.refreshedAt.toISOString() ?? null,
      addressCount: state?.addressCount ?? 0,
      sourceUrl: state?.sourceUrl ?? null,
      status: !state
        ? ('missing' as const)
        : staleAfter!.getTime() < clock.now()
          ? ('stale' as const)
          : ('current' as const),
      staleAfter: staleAfter?.toISOString() ?? null,
      scheduleId: this.scheduleId,
      provider: this.deps.providerConfigured ? ('configured' as const) : ('none' as const),
    };
  }

  /** Starts one refresh now (besides the schedule's): the worker reads SANCTIONS_LIST_URL and replaces the stored list. */
  async refresh(operator: string) {
    const workflowId = `${this.scheduleId}-by-${operator}-${randomUUID()}`;
    const handle = await this.deps.temporal.workflow.start(sanctionsListRefreshWorkflow, {
      workflowId,
      taskQueue: this.deps.taskQueue,
      args: [],
    });
    return { workflowId, runId: handle.firstExecutionRunId };
  }

  /**
   * The beneficiary VASP's resolution of our Travel Rule inquiry at its callback (TRP): the URL's token proves it is
   * the one we sent, and the peer must be the VASP it went to (mutual TLS). A decision signals the waiting transfer
   * workflow, where the first counts (a repeat changes nothing); `{version}` alone says nothing yet. A transfer no
   * longer waiting answers 409.
   */
  async travelRuleCallback(
    counterpart: TravelRuleCounterpart,
    headers: { apiVersion: string; requestIdentifier: string },
    params: { transferId: string; token: string },
    body: unknown,
  ) {
    if (!isAcceptedTrpVersion(headers.apiVersion))
      throw problems.badHeader(
        'api-version',
        `api-version ${headers.apiVersion.slice(0, 20)} is not one we speak: 3.1.x or 3.2.x`,
      );
    const { transferId, token } = params;
    const expected = this.deps.encryption.derivedId(transferId, 'trp-callback', 32);
    const transfer = await this.deps.orm.em.fork().findOne(TransferEntity, { transferId });
    if (
      !transfer?.travelRule ||
      transfer.travelRule.vaspId !== counterpart.id ||
      token.length !== expected.length ||
      !timingSafeEqual(Buffer.from(token), Buffer.from(expected))
    )
      throw problems.notFound('Travel Rule inquiry');
    const resolution = parseResolution(body);
    if (!resolution)
      throw new HttpError(
        400,
        'invalid-trp-message',
        'Bad request',
        'A TRP resolution carries exactly one of approved {address, callback}, rejected or version',
      );
    if (resolution.kind === 'pending') return { received: true as const };
    if (resolution.kind === 'approved' && !sameAccount(resolution.address, transfer.toAddress))
      throw problems.unprocessable(
        'travel-rule-address-mismatch',
        `The approval names ${resolution.address}, not the address of this transfer`,
      );
    const decision =
      resolution.kind === 'approved'
        ? { approved: true, reason: null, callback: resolution.callback }
        : { approved: false, reason: resolution.reason };
    try {
      await this.deps.temporal.workflow
        .getHandle(transferWorkflowId(transferId))
        .signal(travelRuleDecisionSignal, decision);
    } catch (error) {
      if (error instanceof WorkflowNotFoundError)
        throw problems.conflict('travel-rule-decided', 'This transfer is no longer waiting for a Travel Rule decision');
      throw error;
    }
    return { received: true as const };
  }

  async cases(query: { status?: 'open' | 'approved' | 'rejected' | 'closed'; userId?: string } & PageRequest) {
    const where = {
      ...(query.status ? { status: query.status } : {}),
      ...(query.userId ? { userId: query.userId } : {}),
    };
    const page = await findPage<ComplianceCase, string>(
      this.deps.orm.em.fork(),
      ComplianceCaseEntity,
      where,
      CASE_ORDER,
      query,
      { defaultLimit: 100 },
    );
    return { ...page, items: page.items.map(caseView) };
  }

  /**
   * Everything kept about a user for compliance, for an operator to export (a regulator's or auditor's request): the
   * cases and every Travel Rule exchange with its IVMS101 payload opened. Kept COMPLIANCE_RETENTION_DAYS, whether or
   * not the account was closed since.
   */
  async records(userId: string) {
    const em = this.deps.orm.em.fork();
    const cases = await em.find(ComplianceCaseEntity, { userId }, { orderBy: { openedAt: 'asc' } });
    const exchanges = await em.find(TravelRuleRecordEntity, { userId }, { orderBy: { requestedAt: 'asc' } });
    return {
      userId,
      exportedAt: clock.date().toISOString(),
      cases: cases.map(caseView),
      travelRule: exchanges.map((r) => ({
        recordId: r.recordId,
        direction: r.direction,
        transferId: r.transferId ?? null,
        counterpart: { id: r.counterpartVaspId, name: r.counterpartVaspName },
        networkId: r.networkId,
        address: r.address,
        status: r.status,
        reason: r.reason ?? null,
        requestIdentifier: r.requestIdentifier,
        requestedAt: r.requestedAt.toISOString(),
        decidedAt: r.decidedAt?.toISOString() ?? null,
        retainUntil: r.retainUntil.toISOString(),
        ivms101: JSON.parse(this.deps.encryption.openText(r.payloadSealed, `travel-rule:${r.recordId}`)) as unknown,
      })),
    };
  }

  /**
   * An operator's decision on a case: recorded once (who, when, why) with compliance.case_decided, then sent to the
   * transfer it holds (signal complianceDecision). The same decision again re-sends the signal (a retry after Temporal
   * was unreachable) and answers the case; another decision on a decided case is 409.
   */
  async decide(caseId: string, operator: string, body: { decision: 'approve' | 'reject'; reason: string }) {
    const status = body.decision === 'approve' ? ('approved' as const) : ('rejected' as const);
    const reason = body.reason.trim();
    await this.deps.orm.em.fork().transactional(async (tx) => {
      const found = await tx.findOne(ComplianceCaseEntity, { caseId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!found) throw problems.notFound(`Case ${caseId}`);
      if (found.status !== 'open') {
        if (found.status === status) return;
        throw problems.conflict(
          'case-decided',
          `This case was ${found.status} by ${found.decidedBy ?? 'an operator'} at ${found.decidedAt?.toISOString() ?? 'an earlier time'}`,
        );
      }
      Object.assign(found, { status, decidedAt: clock.date(), decidedBy: operator, reason, openKey: null });
      await tx.flush();
      await appendEvent(tx, {
        type: 'compliance.case_decided',
        resourceId: caseId,
        userId: found.userId,
        data: { caseId, decision: status, transferId: found.transferId ?? null },
      });
    });
    const decided = await this.deps.orm.em.fork().findOneOrFail(ComplianceCaseEntity, { caseId });
    if (decided.transferId && decided.source === 'monitoring') {
      await this.deps.temporal.workflow
        .getHandle(transferWorkflowId(decided.transferId))
        .signal(complianceDecisionSignal, {
          approved: status === 'approved',
          reason: decided.reason ?? reason,
          decidedBy: decided.decidedBy ?? operator,
        })
        .catch((error: unknown) => {
          if (!(error instanceof WorkflowNotFoundError)) throw error;
        });
    }
    return caseView(decided);
  }

  async case(caseId: string) {
    const row = await this.deps.orm.em.fork().findOne(ComplianceCaseEntity, { caseId });
    if (!row) throw problems.notFound(`Case ${caseId}`);
    return caseView(row);
  }
}
