/**
 * Compiles contracts/*.sol offline with solc-js (the npm `solc` package) into contracts/build/<Name>.json
 * ({abi, bytecode}). Imports resolve from node_modules. Skipped when the sources have not changed.
 * Usage: npm run contracts:build
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const CONTRACTS = __dirname;
const BUILD = join(CONTRACTS, 'build');
const STAMP = join(BUILD, '.sources-hash');

export interface ContractArtifact {
  contractName: string;
  abi: unknown[];
  bytecode: string;
}

const sources = (): Record<string, { content: string }> =>
  Object.fromEntries(
    readdirSync(CONTRACTS)
      .filter((f) => f.endsWith('.sol'))
      .map((f) => [f, { content: readFileSync(join(CONTRACTS, f), 'utf8') }]),
  );

const findImport = (path: string): { contents: string } | { error: string } => {
  try {
    return { contents: readFileSync(require.resolve(path), 'utf8') };
  } catch {
    return { error: `not found: ${path}` };
  }
};

/**
 * The compiler's settings, as eth-infinitism builds EntryPoint v0.8 and SimpleAccount (IR pipeline, optimized for
 * many runs): what each call costs the service in gas matters more than what deployment costs once.
 */
const SETTINGS = { optimizer: { enabled: true, runs: 1_000_000 }, viaIR: true, evmVersion: 'cancun' };

/**
 * The sources' stamp: their text, the settings and the compiler's release. The release is read from solc's package
 * (each npm release of solc is one compiler release), not from the compiler: loading solc-js costs 0.4 s of CPU and
 * ~100 MiB of memory, which every process that reads an artifact (each test file, each worker and api run from the
 * sources) paid to learn that nothing had changed.
 */
function sourcesHash(input: Record<string, { content: string }>): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- solc is a build-time (dev) dependency
  const { version } = require('solc/package.json') as { version: string };
  return createHash('sha256')
    .update(JSON.stringify(input))
    .update(JSON.stringify(SETTINGS))
    .update(`solc ${version}`)
    .digest('hex');
}

export function buildContracts(options: { force?: boolean; log?: (line: string) => void } = {}): void {
  const input = sources();
  // A production image ships the artifacts without sources or the compiler.
  if (Object.keys(input).length === 0) return;
  const hash = sourcesHash(input);
  if (!options.force && existsSync(STAMP) && readFileSync(STAMP, 'utf8') === hash) return;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- solc is a build-time (dev) dependency
  const solc = require('solc') as typeof import('solc').default;
  options.log?.(`compiling ${Object.keys(input).join(', ')} with solc ${solc.version()}`);
  const output = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: 'Solidity',
        sources: input,
        settings: { ...SETTINGS, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
      }),
      { import: findImport },
    ),
  ) as {
    errors?: Array<{ severity: string; formattedMessage: string }>;
    contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length) throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  mkdirSync(BUILD, { recursive: true });
  for (const file of Object.keys(input)) {
    for (const [contractName, compiled] of Object.entries(output.contracts[file] ?? {})) {
      const artifact: ContractArtifact = {
        contractName,
        abi: compiled.abi,
        bytecode: `0x${compiled.evm.bytecode.object}`,
      };
      writeFileSync(join(BUILD, `${contractName}.json`), `${JSON.stringify(artifact, null, 2)}\n`);
    }
  }
  writeFileSync(STAMP, hash);
}

/** Whether this process has made sure the artifacts match the sources (once: they do not change under it). */
let built = false;

export function loadArtifact(name: string): ContractArtifact {
  if (!built) {
    buildContracts(); // a no-op unless the sources changed
    built = true;
  }
  return JSON.parse(readFileSync(join(BUILD, `${name}.json`), 'utf8')) as ContractArtifact;
}

if (require.main === module) {
  buildContracts({ force: process.argv.includes('--force'), log: (line) => console.log(line) });
  console.log(`artifacts in ${dirname(STAMP)}`);
}
