/**
 * `npm start`: the whole stack on loopback with embedded defaults - Temporal dev server (+ Web UI), SQLite,
 * two local EVM chains with EntryPoint v0.8, a local Solana chain (LiteSVM), the sandbox providers, the worker and the API.
 * State lives under .data/; Ctrl-C stops every child.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveTemporalCli } from './temporal-cli';
import { stopChild } from './child-process';
import { startTemporalDevServer, type RunningDevServer } from './temporal-dev-server';
import {
  ANVIL_PAYMASTER_SIGNER_KEY,
  ANVIL_RECOVERY_ADDRESS,
  ANVIL_RECOVERY_KEY,
  LOCAL_NETWORKS,
  ensureChainContracts,
  startAnvil,
  type ChainContracts,
  type LocalNetworkId,
  type RunningChain,
  LOCAL_INCLUSION_WATCH_MS,
} from './chains';
import { buildContracts } from '../contracts/build';
import { LOCAL_SWAP_PROGRAMS, attachJupiterSandbox, seedJupiterPool, startLocalSolana } from './solana-local';
import { jupiterPoolAddress } from '../sandbox/jupiter';
import { startEvmFaucet } from './evm-faucet';
import { localDexNetwork, seedPools } from './uniswap';
import { priceAtMs } from '../sandbox/upbit-quotation';
import { startAlto } from './alto';
import { loadOrCreateDevSecrets } from './secrets';
import { operatorTokenHash } from '../api/operators/operators';
import { createOrm } from '../db/orm';
import { credentialsFromEnv, sandboxServiceEnv } from '../sandbox/service-env';
import { ETHER_DTI, POLYGON_DTI, USDT_ETHEREUM_DTI } from '../integrations/travel-rule/assets';
import {
  SANDBOX_VASPS,
  sandboxCounterparts,
  travelRuleIdentities,
  type SandboxVaspId,
} from '../sandbox/travel-rule-network';

const ROOT = join(__dirname, '..');
/** State of the embedded stack; STACK_DATA_DIR moves it (the Ctrl-C test runs a second stack in a scratch folder). */
/** The local chains make a block every 2 s (and one per transaction); a transfer is finalized 3 blocks deep. */
const LOCAL_BLOCK_SECONDS = 2;
const LOCAL_CONFIRMATIONS = 3;
const DATA = process.env.STACK_DATA_DIR ?? join(ROOT, '.data');
const port = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);
const PORTS = {
  api: port('API_PORT', 3000),
  temporal: port('TEMPORAL_PORT', 7233),
  temporalUi: port('TEMPORAL_UI_PORT', 8233),
  sandbox: port('SANDBOX_PORT', 4010),
  sandboxSmtp: port('SANDBOX_SMTP_PORT', 2525),
  // The sandbox's two Travel Rule exchanges (TRP, mutual TLS) on this port and the next; the API's TRP listener.
  sandboxTrp: port('SANDBOX_TRP_PORT', 4011),
  trp: port('TRAVEL_RULE_PORT', 3443),
  // CODE's Response API (the sandbox's CODE hub calls it).
  code: port('TRAVEL_RULE_CODE_PORT', 3444),
  ETHEREUM: port('ETHEREUM_RPC_PORT', 8545),
  POLYGON: port('POLYGON_RPC_PORT', 8546),
  ETHEREUM_BUNDLER: port('ETHEREUM_BUNDLER_PORT', 4337),
  POLYGON_BUNDLER: port('POLYGON_BUNDLER_PORT', 4338),
  SOLANA: port('SOLANA_RPC_PORT', 8899),
  evmFaucet: port('EVM_FAUCET_PORT', 8547),
  apiMetrics: port('API_METRICS_PORT', 9464),
  workerMetrics: port('WORKER_METRICS_PORT', 9465),
  temporalMetrics: port('TEMPORAL_METRICS_PORT', 9466),
};

const stoppers: Array<{ name: string; stop: () => Promise<void> }> = [];
let stopping = false;
const started = Date.now();
const progress = (step: number, total: number, text: string) => process.stdout.write(`[${step}/${total}] ${text}... `);
const done = (since: number) => console.log(`ok (${((Date.now() - since) / 1000).toFixed(1)}s)`);

/** An environment less the server-held keys (key encryption, credential issuer, paymaster sponsor): only the worker has them. */
const withoutServerKeys = ({
  KEY_ENCRYPTION_KEY: _key,
  VC_ISSUER_KEY: _issuer,
  PAYMASTER_SIGNER_KEY: _sponsor,
  ...rest
}: NodeJS.ProcessEnv): NodeJS.ProcessEnv => rest;

function startTsProcess(name: string, file: string, env: NodeJS.ProcessEnv): ChildProcess {
  // One process per service (`--import tsx`, not the tsx CLI, which forks), so signals reach the service itself.
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, file)], {
    cwd: ROOT,
    env: { ...withoutServerKeys(process.env), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const prefix = (d: Buffer) =>
    d
      .toString()
      .trimEnd()
      .split('\n')
      .map((l) => `  ${name} | ${l}`)
      .join('\n');
  child.stdout?.on('data', (d: Buffer) => {
    if (process.env.STACK_VERBOSE) console.log(prefix(d));
  });
  child.stderr?.on('data', (d: Buffer) => console.error(prefix(d)));
  child.once('exit', (code) => {
    // Ctrl-C reaches every child of the terminal too; give our own SIGINT handler the first word.
    setTimeout(() => {
      if (!stopping) {
        console.error(`\n${name} exited with code ${code}; stopping the stack`);
        void shutdown(1);
      }
    }, 300);
  });
  stoppers.push({
    name,
    stop: () => stopChild(child),
  });
  return child;
}

async function waitForHttp(
  url: string,
  timeoutMs = 120_000,
  init: { headers?: Record<string, string>; until?: (body: unknown) => boolean } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const answer = await fetch(url, { headers: init.headers });
      if (answer.ok && (!init.until || init.until(await answer.json()))) return;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error(`${url} did not become ready`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function shutdown(code = 0): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log('\nstopping...');
  for (const { name, stop } of stoppers.reverse()) {
    const since = Date.now();
    await stop();
    console.log(`  stopped ${name} (${Date.now() - since} ms)`);
  }
  process.exit(code);
}

async function main(): Promise<void> {
  // A second Ctrl-C while stopping must not kill the launcher before its children are gone.
  process.on('SIGINT', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
  process.on('SIGHUP', () => void shutdown()); // the terminal closed: its group's SIGHUP does not reach Temporal
  mkdirSync(DATA, { recursive: true });
  const total = 8;
  const secrets = loadOrCreateDevSecrets(join(DATA, 'dev.env'));

  let since = Date.now();
  progress(1, total, 'Temporal CLI');
  const cliPath = resolveTemporalCli({ build: true, log: (line) => console.log(`\n  ${line}`) });
  done(since);

  since = Date.now();
  progress(2, total, `Temporal dev server on :${PORTS.temporal} (UI :${PORTS.temporalUi})`);
  const temporal: RunningDevServer = await startTemporalDevServer({
    cliPath,
    port: PORTS.temporal,
    uiPort: PORTS.temporalUi,
    dbFile: join(DATA, 'temporal.db'),
    // The UI decodes payloads through the API's codec endpoint, for a signed-in operator (docs/operating.md).
    uiCodecEndpoint: `http://127.0.0.1:${PORTS.api}/codec`,
    // Ctrl-C reaches the terminal's whole process group at once; a Temporal server gone before the worker leaves the
    // worker retrying for 10 s to report the activities it cancelled. In a group of its own, it is stopped last.
    ownProcessGroup: true,
  });
  stoppers.push({ name: 'temporal', stop: temporal.stop });
  done(since);

  const chains: Record<string, RunningChain & ChainContracts & { bundlerUrl: string }> = {};
  buildContracts({ log: (line) => console.log(`\n  ${line}`) });
  let step = 3;
  for (const [networkId, network] of Object.entries(LOCAL_NETWORKS)) {
    since = Date.now();
    const rpcPort = PORTS[networkId as keyof typeof LOCAL_NETWORKS];
    progress(
      step++,
      total,
      `${networkId} chain (anvil, chain id ${network.chainId}) on :${rpcPort} + EntryPoint v0.8, account factory, paymaster (funded), DID registry; its bundler (Alto) on :${PORTS[`${networkId as keyof typeof LOCAL_NETWORKS}_BUNDLER`]}`,
    );
    const chain = await startAnvil({
      chainId: network.chainId,
      port: rpcPort,
      stateFile: join(DATA, `anvil-${networkId.toLowerCase()}.json`),
      blockTimeSeconds: LOCAL_BLOCK_SECONDS,
    });
    stoppers.push({ name: `anvil ${networkId}`, stop: chain.stop });
    const contracts = await ensureChainContracts(chain.rpcUrl);
    // The pools at the sandbox market's prices now (what GET /api/v1/market-price answers); nothing re-prices them.
    await seedPools(chain.rpcUrl, networkId as LocalNetworkId, contracts.uniswap, contracts.usdt, (symbol) =>
      priceAtMs(symbol, Date.now()),
    );
    const bundler = await startAlto({
      rpcUrl: chain.rpcUrl,
      entryPoint: contracts.entryPoint,
      port: PORTS[`${networkId as keyof typeof LOCAL_NETWORKS}_BUNDLER`],
    });
    stoppers.push({ name: `bundler ${networkId}`, stop: bundler.stop });
    chains[networkId] = { ...chain, ...contracts, bundlerUrl: bundler.url };
    done(since);
  }
  since = Date.now();
  progress(
    step++,
    total,
    `SOLANA chain (LiteSVM behind Solana JSON-RPC) on :${PORTS.SOLANA} + test USDT mint, dev faucet`,
  );
  const solana = await startLocalSolana({ port: PORTS.SOLANA, stateFile: join(DATA, 'solana-local.json') });
  stoppers.push({ name: 'solana', stop: solana.stop });
  // The sandbox's Jupiter pool at the market's price now (its wallet's SOL and USDT on this chain).
  await seedJupiterPool(solana, await jupiterPoolAddress(), (symbol) => priceAtMs(symbol, Date.now()));
  done(since);

  const evmFaucet = await startEvmFaucet(
    Object.entries(chains).map(([networkId, c]) => ({
      networkId,
      rpcUrl: c.rpcUrl,
      usdt: c.usdt,
      nativeSymbol: networkId === 'POLYGON' ? 'POL' : 'ETH',
    })),
    PORTS.evmFaucet,
  );
  stoppers.push({ name: 'EVM faucet', stop: evmFaucet.stop });

  const networks = {
    ...Object.fromEntries(
      Object.entries(chains).map(([id, c]) => [
        id,
        {
          kind: 'evm',
          chainId: c.chainId,
          rpcUrl: c.rpcUrl,
          entryPoint: c.entryPoint,
          bundlerUrl: c.bundlerUrl,
          accountFactory: c.accountFactory,
          paymaster: c.paymaster,
          didRegistry: c.didRegistry,
          recoverableImplementation: c.recoverableImplementation,
          nativeSymbol: id === 'POLYGON' ? 'POL' : 'ETH',
          // The local chains stand for Ethereum and Polygon: their coins are announced as those (Travel Rule).
          coinDti: id === 'POLYGON' ? POLYGON_DTI : ETHER_DTI,
          // The local USDT stands for Tether's: on ETHEREUM it carries USDT's DTI (Travel Rule messages name it).
          // Its tokens and exchange: Uniswap v3 deployed from Uniswap's artifacts (dev/uniswap.ts).
          ...localDexNetwork(
            id as LocalNetworkId,
            c.uniswap,
            c.usdt,
            id === 'ETHEREUM' ? USDT_ETHEREUM_DTI : undefined,
          ),
          confirmations: LOCAL_CONFIRMATIONS,
          inclusionWatchMs: LOCAL_INCLUSION_WATCH_MS,
          // The local chains include at once: a transfer's send runs in the workflow's worker (version 5).
          transferSendLocal: true,
        },
      ]),
    ),
    SOLANA: {
      kind: 'solana',
      rpcUrl: solana.rpcUrl,
      faucetUrl: solana.faucetUrl,
      tokens: { USDT: { mint: solana.usdtMint, decimals: 6 } },
      // Quotes and swaps through Jupiter's Swap API: the sandbox's, over its pool on this chain.
      dex: { kind: 'jupiter', tradable: ['SOL', 'USDT'], programs: LOCAL_SWAP_PROGRAMS },
      // The local cluster lands a transaction within a second: its sends run in the workflow's worker too.
      transferSendLocal: true,
    },
  };
  writeFileSync(join(DATA, 'networks.json'), JSON.stringify(networks, null, 2));

  const sandboxUrl = `http://127.0.0.1:${PORTS.sandbox}`;
  const apiUrl = `http://127.0.0.1:${PORTS.api}`;
  // The Travel Rule network's certificates (a private CA's, made once into .data/trp), and where its exchanges are.
  const trpDir = join(DATA, 'trp');
  mkdirSync(trpDir, { recursive: true });
  const trpIdentities = travelRuleIdentities(trpDir);
  const trpOrigins = Object.fromEntries(
    SANDBOX_VASPS.map((v, i) => [v.id, `https://localhost:${PORTS.sandboxTrp + i}`]),
  ) as Record<SandboxVaspId, string>;
  const env: NodeJS.ProcessEnv = {
    NODE_ENV: 'development',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    DATABASE_URL: process.env.DATABASE_URL ?? `sqlite:${join(DATA, 'wallet.db')}`,
    TEMPORAL_ADDRESS: temporal.address,
    // Every provider is the sandbox, speaking its provider's own protocol (docs/providers.md).
    ...sandboxServiceEnv(
      {
        url: sandboxUrl,
        smtpPort: PORTS.sandboxSmtp,
        travelRule: { counterparts: sandboxCounterparts(trpIdentities, trpOrigins), identities: trpIdentities },
      },
      credentialsFromEnv(secrets),
    ),
    SANDBOX_TRP_DIR: trpDir,
    SANDBOX_TRP_PORT: String(PORTS.sandboxTrp),
    TRAVEL_RULE_PORT: String(PORTS.trp),
    TRAVEL_RULE_HOST: '127.0.0.1',
    TRAVEL_RULE_PUBLIC_URL: `https://localhost:${PORTS.trp}`,
    TRAVEL_RULE_CODE_PORT: String(PORTS.code),
    TRAVEL_RULE_CODE_HOST: '127.0.0.1',
    API_HOST: '127.0.0.1',
    API_PORT: String(PORTS.api),
    PUBLIC_BASE_URL: apiUrl,
    VC_STATUS_BASE_URL: apiUrl,
    SANDBOX_PORT: String(PORTS.sandbox),
    SANDBOX_SMTP_PORT: String(PORTS.sandboxSmtp),
    PASS_CALLBACK_URL: `${apiUrl}/v1/auth/pass/callback`,
    // Identity verification in NICE's standard window (the sandbox speaks NICE's protocol); callback for the other kind.
    IDENTITY_PROVIDER: process.env.IDENTITY_PROVIDER ?? 'nice',
    // Sanctions: the sandbox serves the SDN snapshot of data/ofac-sdn (2024-09-27) as the Treasury's XML, and a
    // screening provider of Chainalysis' shape; the Travel Rule: two exchanges speaking TRP over mutual TLS
    // (docs/transfers.md, "Compliance").
    // The sandbox's webhook receiver is on loopback; production refuses private addresses.
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS ?? 'true',
    NETWORKS: JSON.stringify(networks),
    PAYMASTER_SIGNER_KEY: ANVIL_PAYMASTER_SIGNER_KEY,
    // The recovery key (anvil's, funded); a recovery waits 30 s here (72 h in production) and looks on chain every 5 s
    // for the owner's cancellation, or for a chain clock moved forward past the delay (docs/sign-in-and-recovery.md).
    RECOVERY_ADDRESS: ANVIL_RECOVERY_ADDRESS,
    RECOVERY_PRIVATE_KEY: ANVIL_RECOVERY_KEY,
    RECOVERY_DELAY_SECONDS: process.env.RECOVERY_DELAY_SECONDS ?? '30',
    RECOVERY_POLL_SECONDS: process.env.RECOVERY_POLL_SECONDS ?? '5',
    // New recipients are usable at once here (and still recorded in the address book); production waits 24 h.
    ADDRESS_COOLING_OFF_SECONDS: process.env.ADDRESS_COOLING_OFF_SECONDS ?? '0',
    // Transfers up to 3,000,000 won need no passkey here (production: 1,000,000), so the walk-through's Travel Rule
    // transfers (from 1,000,000 won) go with the PIN alone.
    TRANSFER_PASSKEY_ABOVE_KRW: process.env.TRANSFER_PASSKEY_ABOVE_KRW ?? '3000000',
    // An operator may move the clock forward here (docs/test-clock.md); production refuses the setting.
    TEST_CLOCK_ENABLED: 'true',
    ...secrets,
  };
  // The operator `dev` (its token stays in .data/dev.env; the API gets its hash); the UI's own origins may call the codec.
  env.OPERATOR_TOKENS = JSON.stringify({ dev: operatorTokenHash(secrets.OPERATOR_TOKEN!) });
  env.CODEC_CORS_ORIGINS = `http://127.0.0.1:${PORTS.temporalUi},http://localhost:${PORTS.temporalUi}`;
  delete env.OPERATOR_TOKEN;

  since = Date.now();
  progress(step++, total, `database migrations (${env.DATABASE_URL})`);
  await (await createOrm(env.DATABASE_URL!, { migrate: true })).close();
  done(since);

  since = Date.now();
  progress(
    step++,
    total,
    `sandbox providers (identity, open banking, CLOVA OCR, useB, Upbit quotations, KIS securities, CEX) on :${PORTS.sandbox}, mail (SMTP) on :${PORTS.sandboxSmtp}`,
  );
  startTsProcess('sandbox', 'sandbox/main.ts', env);
  await waitForHttp(`${sandboxUrl}/clova/_stats`);
  await attachJupiterSandbox(sandboxUrl, solana);
  done(since);

  since = Date.now();
  progress(step++, total, `worker and API on :${PORTS.api}, the sanctions list read`);
  startTsProcess('worker', 'worker/main.ts', {
    ...env,
    METRICS_PORT: String(PORTS.workerMetrics),
    TEMPORAL_METRICS_PORT: String(PORTS.temporalMetrics),
  });
  // The API never holds a server-held key: only the worker gets KEY_ENCRYPTION_KEY, VC_ISSUER_KEY, PAYMASTER_SIGNER_KEY.
  startTsProcess('api', 'api/main.ts', { ...withoutServerKeys(env), METRICS_PORT: String(PORTS.apiMetrics) });
  await waitForHttp(`${apiUrl}/readyz`);
  // Transfers and deploys are screened against the sanctions list, which the worker reads at start: the stack is up
  // once it has (before that every screened request answers 503 screening-unavailable).
  await waitForHttp(`${apiUrl}/v1/compliance/sanctions-list`, 120_000, {
    headers: { authorization: `Bearer ${secrets.OPERATOR_TOKEN}` },
    until: (list) => (list as { status?: string }).status === 'current',
  });
  done(since);

  console.log(`
Stack is up in ${((Date.now() - started) / 1000).toFixed(1)}s. Ctrl-C stops everything.
  API            ${apiUrl}
  API docs       ${apiUrl}/docs   (OpenAPI: ${apiUrl}/openapi.json)
  Temporal UI    http://127.0.0.1:${PORTS.temporalUi}
  Temporal gRPC  ${temporal.address}
  Sandbox        ${sandboxUrl}   (identity: NICE /digital/niceid and /CheckPlusSafeModel, the callback kind /pass/v1; open banking /kftc, CLOVA OCR /clova, useB /useb, Upbit quotations /upbit, KIS securities /kis, CEX /cex, mail inbox /mail/v1/_inbox, OFAC list /ofac, Jupiter /jupiter/swap/v2, screening /api/v1/address, Travel Rule network /trp/_*, faults /_faults)
  Travel Rule    our TRP listener https://localhost:${PORTS.trp} (mutual TLS); the sandbox's exchanges ${Object.values(trpOrigins).join(', ')}; CODE's Response API http://127.0.0.1:${PORTS.code} (for the sandbox's CODE hub)
  Mail (SMTP)    127.0.0.1:${PORTS.sandboxSmtp}   every mail the service sends; read them at ${sandboxUrl}/mail/v1/_inbox/<address>
  ETHEREUM       ${chains.ETHEREUM!.rpcUrl}   chain id ${chains.ETHEREUM!.chainId}
  POLYGON        ${chains.POLYGON!.rpcUrl}   chain id ${chains.POLYGON!.chainId}
                 (both) EntryPoint ${chains.ETHEREUM!.entryPoint}, account factory ${chains.ETHEREUM!.accountFactory}, paymaster ${chains.ETHEREUM!.paymaster},
                 DID registry ${chains.ETHEREUM!.didRegistry}, USDT ${chains.ETHEREUM!.usdt}
  Bundlers       ${chains.ETHEREUM!.bundlerUrl} (ETHEREUM), ${chains.POLYGON!.bundlerUrl} (POLYGON)   Pimlico's Alto, ERC-7769 JSON-RPC
  EVM faucet     ${evmFaucet.url}   POST {"network":"ETHEREUM"|"POLYGON","address":"0x…"}: 1 ETH/POL + 1,000 USDT, once
  SOLANA         ${solana.rpcUrl}   LiteSVM, USDT mint ${solana.usdtMint}, faucet ${solana.faucetUrl}
  Metrics        api http://127.0.0.1:${PORTS.apiMetrics}/metrics, worker http://127.0.0.1:${PORTS.workerMetrics}/metrics, Temporal SDK http://127.0.0.1:${PORTS.temporalMetrics}/metrics
  Database       ${env.DATABASE_URL}
  Secrets        .data/dev.env (a user's access token: npm run token -- <userId>)
  Operators      sign in at ${apiUrl}/codec/login with OPERATOR_TOKEN from .data/dev.env; the Temporal UI then shows payloads decoded
  Test clock     on: POST ${apiUrl}/v1/test-clock/advance {"seconds":86400} (operator) moves the service and the EVM chains a day (docs/test-clock.md)
`);
}

main().catch(async (error) => {
  console.error(`\nfailed: ${(error as Error).message}`);
  await shutdown(1);
});
