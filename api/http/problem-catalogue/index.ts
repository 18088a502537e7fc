import type { ProblemEntry } from './entry';
import { PART_1 } from './part-1';
import { PART_2 } from './part-2';
import { PART_3 } from './part-3';
import { PART_4 } from './part-4';

export type { ProblemEntry } from './entry';

/**
 * Every problem type the service answers (`type: "/problems/<name>"`), what it means, when it happens and what to do:
 * served at GET /problems and GET /problems/{name}, rendered in the reference page (/docs). A test fails when a
 * problem type the code can answer has no entry here (test/unit/problem-catalogue.test.ts).
 */
export const PROBLEM_CATALOGUE: Readonly<Record<string, ProblemEntry>> = { ...PART_1, ...PART_2, ...PART_3, ...PART_4 };
