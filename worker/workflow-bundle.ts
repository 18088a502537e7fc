import type { BundleOptions } from '@temporalio/worker';

/**
 * How the workflows are bundled, the same everywhere they are (`npm run build`, a worker started without a prebuilt
 * bundle, the tests): the SDK's options, with the bundle's inline source map made without the sources' text.
 *
 * The worker reads the source map into both of its threads (a parsed copy on the main thread, another handed to the
 * workflow thread with a source-map consumer over it) to map workflow stack traces (the Temporal UI's Stack Trace
 * tab, a failure's stack) back to our files: that needs the mappings and the files' names only. The sources' text
 * (70 % of the map, about 700 KB) is read only by the enhanced stack trace query when the worker's
 * `showStackTraceSources` is on, which ours never sets. Left out, the worker at rest is about 8 MiB smaller
 * (bench/NOTES.md, issue 52).
 */
export const WORKFLOW_BUNDLE_OPTIONS = {
  webpackConfigHook: (config) => ({ ...config, devtool: 'inline-nosources-source-map' }),
} satisfies Pick<BundleOptions, 'webpackConfigHook'>;
