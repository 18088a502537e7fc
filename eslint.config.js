// @ts-check
const tseslint = require('typescript-eslint');
// Formatting is Prettier's (.prettierrc.json, `npm run format`); this turns off the lint rules that would disagree.
const prettier = require('eslint-config-prettier');
const { builtinModules } = require('node:module');

/** An import of any module under these top-level folders, from any depth (`../../activities/x`, `../activities`). */
const under = (...folders) => folders.flatMap((f) => [`**/${f}`, `**/${f}/*`, `**/${f}/**`]);

/**
 * The layers (docs/architecture.md): data flows api -> workflows (messages and types); worker -> activities ->
 * integrations and db. Each block is the whole import policy of one layer, so a file that reaches across a boundary
 * fails the lint.
 */
const layer = (files, patterns) => ({
  files,
  rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns }] },
});

const API_BOUNDARIES = [
  {
    group: under('activities', 'worker', 'sandbox', 'dev'),
    message: 'The API starts workflows; only the worker runs activities',
  },
  {
    group: [...under('integrations/custody'), '**/platform/envelope'],
    message: 'Server-held keys are opened only in the worker',
  },
];

module.exports = tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'clients/typescript/dist/', // the client's build (npm pack)
      '.data/',
      '.tools/',
      'coverage/',
      'contracts/build/',
      'eslint.config.js',
      'jest.config.js',
    ],
  },
  ...tseslint.configs.recommended,
  // npm's install step runs scripts/*.cjs with the plain Node that runs npm: CommonJS, no TypeScript.
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: __dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
  // Workflow code runs in Temporal's deterministic sandbox: no I/O libraries, no Node built-ins, and only types from
  // the rest of the service, except the failure-type names (platform/failures.ts: constants, no imports).
  {
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            ...builtinModules.map((name) => ({ name, message: 'Node built-ins are not available in workflows' })),
            {
              name: '@temporalio/workflow',
              importNames: ['proxyActivities'],
              message:
                "Use proxyCapabilityActivities (workflows/capabilities.ts): it schedules each activity on its capability's task queue",
            },
          ],
          patterns: [
            { group: ['node:*'], message: 'Node built-ins are not available in workflows' },
            {
              group: ['ethers', 'ethers/*', '@mikro-orm/*', 'koa', '@koa/*', 'pino', 'jose', '@solana/*'],
              message: 'Side effects belong in activities',
            },
            {
              group: [
                ...under('activities', 'integrations', 'db', 'api', 'worker', 'sandbox', 'dev', 'contracts'),
                '**/platform/*',
                '!**/platform/failures',
              ],
              allowTypeImports: true,
              message: 'Workflows may only import types from elsewhere (and platform/failures)',
            },
          ],
        },
      ],
    },
  },
  // The API validates, authorizes, records intent and reads: it never runs activities and never opens a server-held key.
  layer(['api/**/*.ts'], API_BOUNDARIES),
  // A route file declares routes; its schemas live in the area's schemas.ts (one source for validation and OpenAPI).
  layer(
    ['api/**/routes.ts', 'api/**/*-routes.ts'],
    [
      ...API_BOUNDARIES,
      {
        group: ['@sinclair/typebox'],
        allowTypeImports: true,
        message: "Schemas belong in the area's schemas.ts, not in a route file",
      },
    ],
  ),
  // Clients of the outside world know nothing of the service around them.
  layer(
    ['integrations/**/*.ts'],
    [
      {
        group: under('api', 'activities', 'workflows', 'worker', 'sandbox', 'dev'),
        allowTypeImports: true,
        message: 'Integrations import only types from the service',
      },
    ],
  ),
  layer(
    ['activities/**/*.ts'],
    [
      {
        group: under('api', 'worker', 'sandbox', 'dev'),
        message: 'Activities receive their clients; they know nothing of the API or the worker process',
      },
    ],
  ),
  layer(
    ['db/**/*.ts', 'platform/**/*.ts'],
    [
      {
        group: under('api', 'activities', 'integrations', 'worker', 'sandbox', 'dev'),
        allowTypeImports: true,
        message: 'db/ and platform/ sit below every layer',
      },
    ],
  ),
  {
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  // Business time is the service's clock (platform/clock.ts), which the test clock moves; the files below measure
  // real durations or speak real time to others (JWTs, credentials, rate-limit windows, price history).
  {
    files: ['api/**/*.ts', 'activities/**/*.ts', 'db/**/*.ts'],
    ignores: [
      'db/migrations/**',
      'db/make-migration.ts',
      'api/auth/tokens.ts',
      'api/http/rate-limits.ts',
      'api/operators/routes.ts',
      'api/credentials/routes.ts',
      'api/assets/routes.ts',
      'activities/credentials.ts',
      'activities/security-notice.ts',
      'db/bank-tran-ids.ts',
    ],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: "Read the service's clock: clock.now() (platform/clock.ts)",
        },
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: "Read the service's clock: clock.date() (platform/clock.ts)",
        },
      ],
    },
  },
  prettier,
);
