import { join } from 'node:path';
import recorded from './examples.json';

/**
 * Examples and problem types per operation, from what the service answered in the tests (scripts/examples.ts builds
 * examples.json from a recording of the test stacks; a unit test checks each example against its schema and that
 * every body has one). The OpenAPI document shows them.
 */
export interface OperationExample {
  /** A JSON request body the operation accepted. */
  request?: unknown;
  /** A body it answered, per success status. */
  responses?: Record<string, unknown>;
  /** The problem types it answered, per error status. */
  problems?: Record<string, string[]>;
}
export type OperationExamples = Record<string, OperationExample>;

export const EXAMPLES_PATH = join(__dirname, 'examples.json');
export const OPERATION_EXAMPLES = recorded as unknown as OperationExamples;
