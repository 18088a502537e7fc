import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { emailVerificationWorkflow } from '../../workflows/email-verification';
import type { EmailVerificationActivities } from '../../activities/email-verification';
import { testWorkflowBundle } from '../helpers/workflow-bundle';
import { workflowTestWorker } from '../helpers/workflow-env';

/**
 * The workflow bundle's source map is made without the sources' text (worker/workflow-bundle.ts): what an operator
 * reads in the Temporal UI's Stack Trace tab must still name our workflow files and lines, not the bundle's.
 */
describe('workflow stack traces with the bundle made without the sources text', () => {
  let harness: Awaited<ReturnType<typeof workflowTestWorker>>;
  let release: () => void = () => undefined;
  const sending = new Promise<void>((resolve) => (release = resolve));

  const activities: EmailVerificationActivities = {
    async sendVerificationEmail() {
      await sending;
    },
  };

  beforeAll(async () => {
    harness = await workflowTestWorker(activities);
  });
  afterAll(async () => {
    release();
    await harness?.stop();
  });

  it("keeps the mappings and the files' names, and leaves the text out", async () => {
    const bundle = await testWorkflowBundle();
    const code = 'code' in bundle ? bundle.code : readFileSync(bundle.codePath, 'utf8');
    const encoded = code.slice(code.lastIndexOf('base64,') + 'base64,'.length).trimEnd();
    const map = JSON.parse(Buffer.from(encoded, 'base64').toString()) as {
      sources: string[];
      mappings: string;
      sourcesContent?: unknown;
    };
    expect(map.sourcesContent).toBeUndefined();
    expect(map.mappings.length).toBeGreaterThan(1000);
    expect(map.sources.some((s) => s.endsWith('workflows/transfer.ts') || s.endsWith('workflows/transfer.js'))).toBe(
      true,
    );
  });

  it("answers the UI's stack trace query with our workflow's file and line", async () => {
    const handle = await harness.env.client.workflow.start(emailVerificationWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `stack-trace-${randomUUID()}`,
      args: [{ verificationId: 'ev_stack', code: '123456' }],
    });
    // The query is answered once the first workflow task has run (the activity is then scheduled and held).
    let trace = '';
    for (let i = 0; i < 50 && !trace.includes('email-verification'); i++) {
      trace = await handle.query<string>('__stack_trace');
      if (!trace.includes('email-verification')) await new Promise((r) => setTimeout(r, 100));
    }
    expect(trace).toMatch(/workflows\/email-verification\.(ts|js):\d+:\d+/);
    expect(trace).not.toMatch(/workflows\.js:\d+/);
    release();
    await handle.result();
  });
});
