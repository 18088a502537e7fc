import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Logger } from '../../platform/logger';
import { securityNoticeWorkflow } from '../../workflows/security-notice';
import { securityNoticeWorkflowId, type SecurityNoticeInput } from '../../workflows/messages';
import { startOnce } from '../http/start-once';

/**
 * Mail to the person about a change to how their account is protected, at every address they have (the verified one,
 * and the one an email change replaced while it can still be undone). The worker mails it (workflow
 * security-notice-<type>-<eventId>); the workflow is started before the change commits and mails only once the
 * change's event is there, so a process that dies between the two loses no notice, and a change that fails mails none.
 */
export class SecurityNotices {
  constructor(private readonly deps: { temporal: Client; taskQueue: string; logger?: Logger }) {}

  /**
   * Runs `change` with its notice started first. `change` commits the event `notice.eventType` of `notice.resourceId`
   * under the event id it is given (appendEvent's `eventId`), which the notice waits for.
   */
  async around<T>(notice: Omit<SecurityNoticeInput, 'eventId'>, change: (eventId: string) => Promise<T>): Promise<T> {
    const eventId = `evt_${randomUUID()}`;
    await this.start(notice, eventId);
    return change(eventId);
  }

  /**
   * Starts the notice of a change already committed under `eventId`, for a change that could not know beforehand
   * that it would need one (a wrong PIN that a parallel one made the locking one). Never throws: it logs.
   */
  async afterCommit(notice: Omit<SecurityNoticeInput, 'eventId'>, eventId: string): Promise<void> {
    // The change stands whatever happens here: its answer is not turned into an error. The event is kept (and sent to
    // webhooks) even when its mail cannot be started.
    await this.start(notice, eventId).catch((error: unknown) =>
      this.deps.logger?.error(
        { err: error, eventId, eventType: notice.eventType, userId: notice.userId },
        'security notice not started after its change committed',
      ),
    );
  }

  private start(notice: Omit<SecurityNoticeInput, 'eventId'>, eventId: string): Promise<void> {
    return startOnce(() =>
      this.deps.temporal.workflow.start(securityNoticeWorkflow, {
        workflowId: securityNoticeWorkflowId(notice.eventType, eventId),
        taskQueue: this.deps.taskQueue,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        args: [{ ...notice, eventId }],
      }),
    );
  }
}
