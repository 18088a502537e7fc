import type { Client } from '@temporalio/client';
import { securityNoticeWorkflow } from '../../workflows/security-notice';
import { securityNoticeWorkflowId, type SecurityNoticeInput } from '../../workflows/messages';
import { startOnce } from '../http/start-once';

/**
 * Mail to the person about a change to how their account is protected. The worker mails it (workflow
 * security-notice-<type>-<resourceId>); the workflow is started before the change commits and mails only once the
 * change's event is there, so a process that dies between the two loses no notice, and a change that fails mails none.
 */
export class SecurityNotices {
  constructor(private readonly deps: { temporal: Client; taskQueue: string }) {}

  /** Runs `change` (which commits the event `notice.eventType` of `notice.resourceId`) with its notice started first. */
  async around<T>(notice: SecurityNoticeInput, change: () => Promise<T>): Promise<T> {
    await startOnce(() =>
      this.deps.temporal.workflow.start(securityNoticeWorkflow, {
        workflowId: securityNoticeWorkflowId(notice.eventType, notice.resourceId),
        taskQueue: this.deps.taskQueue,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        args: [notice],
      }),
    );
    return change();
  }
}
