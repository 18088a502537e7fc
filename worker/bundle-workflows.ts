/**
 * `npm run build` runs this after tsc: the workflows bundled once, into dist/workflow-bundle.js, which the compiled
 * worker loads instead of bundling them with webpack at every start (Temporal's advice for production: a faster start,
 * and none of webpack's compilation kept in the worker's memory).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { PREBUILT_WORKFLOW_BUNDLE } from './create-worker';
import { WORKFLOW_BUNDLE_OPTIONS } from './workflow-bundle';

async function main(): Promise<void> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../workflows'),
    logger: new DefaultLogger('WARN'),
    ...WORKFLOW_BUNDLE_OPTIONS,
  });
  writeFileSync(PREBUILT_WORKFLOW_BUNDLE, code);
  console.log(`workflow bundle: ${join('dist', 'workflow-bundle.js')} (${Math.round(code.length / 1024)} KiB)`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
