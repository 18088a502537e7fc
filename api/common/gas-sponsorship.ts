import type { Client } from '@temporalio/client';
import type { Orm } from '../../db/orm';
import { gasUsedKrw } from '../../db/entities';
import { koreanDay } from '../../platform/korean-day';
import { formatMoney } from '../../platform/money';
import { serializeOperation } from '../../integrations/evm/smart-account';
import type { UserOperation } from '../../integrations/evm/user-operation';
import { gasSponsorshipWorkflow } from '../../workflows/gas-sponsorship';
import { gasSponsorshipWorkflowId } from '../../workflows/messages';
import { HttpError } from '../http/problems';
import { priceAboveInFlight } from './signed-operation';

/** A prepared operation's sponsorship outlives its prepare window by this much, for the submission to land. */
const SUBMISSION_MARGIN_MS = 15 * 60 * 1000;
export const sponsoredUntil = (expiresAt: Date, extraSeconds = 0): Date =>
  new Date(expiresAt.getTime() + SUBMISSION_MARGIN_MS + extraSeconds * 1000);

/**
 * Gas the service pays through its paymaster, within a daily budget per user in won. Operations the owner signs must
 * carry their paymasterAndData before they are hashed, so prepare asks the worker (which alone holds the sponsor key
 * and checks the budget) through gas-sponsorship-<requestId> and waits; the API only reads the budget.
 */
export class GasSponsorships {
  constructor(private readonly deps: { orm: Orm; temporal: Client; taskQueue: string; dailyBudgetKrw: number }) {}

  /** The operations, sponsored until `validUntil`; over budget: 422 gas-budget-exceeded with the budget and its reset. */
  async sponsor(
    userId: string,
    requestId: string,
    items: Array<{ networkId: string; operation: UserOperation }>,
    validUntil: Date,
  ): Promise<UserOperation[]> {
    // An operation prepared again for a nonce already in flight (the owner re-signs a stalled one) must outbid it.
    items = await priceAboveInFlight(this.deps.orm, items);
    const signed = await this.deps.temporal.workflow.execute(gasSponsorshipWorkflow, {
      workflowId: gasSponsorshipWorkflowId(requestId),
      taskQueue: this.deps.taskQueue,
      workflowIdConflictPolicy: 'USE_EXISTING',
      args: [
        {
          userId,
          validUntil: validUntil.getTime(),
          operations: items.map((item) => ({
            sponsorshipId: `${requestId}:${item.networkId}`,
            networkId: item.networkId,
            userOperation: serializeOperation(item.operation),
          })),
        },
      ],
    });
    return items.map((item, i) => ({ ...item.operation, paymasterAndData: signed[i]! }));
  }

  async budget(userId: string) {
    const day = koreanDay();
    const budget = BigInt(this.deps.dailyBudgetKrw);
    const used = await gasUsedKrw(this.deps.orm.em.fork(), userId, day);
    return {
      dailyBudgetKrw: budget.toString(),
      usedTodayKrw: used.toString(),
      remainingTodayKrw: (budget > used ? budget - used : 0n).toString(),
      resetsAt: day.to.toISOString(),
      paidBy: 'service' as const,
    };
  }

  /** Refuses early (before anything is recorded) when nothing of today's budget is left. */
  async assertBudgetLeft(userId: string): Promise<void> {
    const view = await this.budget(userId);
    if (view.remainingTodayKrw !== '0') return;
    throw new HttpError(
      422,
      'gas-budget-exceeded',
      'Gas budget exceeded',
      `Gas is sponsored up to ${formatMoney(BigInt(view.dailyBudgetKrw), 0, 'KRW')} a day and none is left until ${view.resetsAt}`,
      undefined,
      {},
      false,
      { budgetKrw: view.dailyBudgetKrw, usedKrw: view.usedTodayKrw, resetsAt: view.resetsAt },
    );
  }
}
