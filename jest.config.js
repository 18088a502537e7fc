/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  // The client's workspace package points at its build (clients/typescript/dist, made by npm pack): tests use its source.
  moduleNameMapper: { '^@wallet-service/client$': '<rootDir>/clients/typescript/src/index.ts' },
  // The slowest files first, by the last run's times or, on a machine without them, those of a committed CI run.
  testSequencer: '<rootDir>/test/helpers/slowest-first.cjs',
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
  testTimeout: 180_000,
  // `npm test` runs three files at a time on 2 cores (--maxWorkers=3: the tests often wait on chains, Temporal and
  // timers; docs/testing.md has the figures), each jest worker with its own Temporal namespace and port range
  // (test/helpers/global-setup.ts), in a worker process that is replaced once a file leaves it above this much memory:
  // a single process for the whole run (--runInBand) kept every file's modules and ran out of heap near the end.
  workerIdleMemoryLimit: '1500MB',
  verbose: true,
};
