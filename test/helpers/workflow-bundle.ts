import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleWorkflowCode, DefaultLogger, type WorkflowBundleOption } from '@temporalio/worker';
import { WORKFLOW_BUNDLE_OPTIONS } from '../../worker/workflow-bundle';

const bundleNow = () =>
  bundleWorkflowCode({
    workflowsPath: require.resolve('../../workflows'),
    logger: new DefaultLogger('WARN'),
    ...WORKFLOW_BUNDLE_OPTIONS,
  });

/**
 * The workflow code, bundled once for the whole test run by global setup (bundling takes a second or more, and ~50
 * test files start workers): the file it wrote, named by TEST_WORKFLOW_BUNDLE. A test run without global setup (a
 * file run alone by an editor) bundles once per test file.
 */
let bundled: Promise<WorkflowBundleOption> | undefined;
export function testWorkflowBundle(): Promise<WorkflowBundleOption> {
  const codePath = process.env.TEST_WORKFLOW_BUNDLE;
  if (codePath) return Promise.resolve({ codePath });
  return (bundled ??= bundleNow());
}

/** Global setup's part: bundles into `dir` and names the file in TEST_WORKFLOW_BUNDLE. */
export async function bundleWorkflowsForRun(dir: string): Promise<void> {
  const { code } = await bundleNow();
  writeFileSync(join(dir, 'workflows.js'), code);
  process.env.TEST_WORKFLOW_BUNDLE = join(dir, 'workflows.js');
}
