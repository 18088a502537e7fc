// @ts-check
const tseslint = require('typescript-eslint');
const { builtinModules } = require('node:module');

module.exports = tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.data/', '.tools/', 'coverage/', 'contracts/build/', 'eslint.config.js', 'jest.config.js'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: __dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
  {
    // Workflow code runs in Temporal's deterministic sandbox: no I/O libraries, no Node built-ins, and only
    // type imports from the rest of the service.
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        paths: builtinModules.map((name) => ({ name, message: 'Node built-ins are not available in workflows' })),
        patterns: [
          { group: ['node:*'], message: 'Node built-ins are not available in workflows' },
          { group: ['ethers', 'ethers/*', '@mikro-orm/*', 'koa', '@koa/*', 'pino', 'jose'], message: 'Side effects belong in activities' },
          { group: ['../activities/*', '../db/*', '../api/*', '../platform/*', '../worker/*', '../sandbox/*'], allowTypeImports: true, message: 'Workflows may only import types from elsewhere' },
        ],
      }],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
