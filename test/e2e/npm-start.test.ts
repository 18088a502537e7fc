import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../helpers/processes';

const ROOT = join(__dirname, '../..');
/** Ports of its own, so this stack never meets the test run's Temporal server or a developer's `npm start`. */
const PORTS = {
  API_PORT: 13_100,
  TEMPORAL_PORT: 17_433,
  TEMPORAL_UI_PORT: 18_433,
  SANDBOX_PORT: 14_110,
  ETHEREUM_RPC_PORT: 18_645,
  POLYGON_RPC_PORT: 18_646,
  ETHEREUM_BUNDLER_PORT: 18_437,
  POLYGON_BUNDLER_PORT: 18_438,
  SOLANA_RPC_PORT: 18_999,
  EVM_FAUCET_PORT: 18_647,
  API_METRICS_PORT: 19_464,
  WORKER_METRICS_PORT: 19_465,
  TEMPORAL_METRICS_PORT: 19_466,
  SANDBOX_TRP_PORT: 14_111, // and the next two: the sandbox's three Travel Rule exchanges
  TRAVEL_RULE_PORT: 13_443,
};

/** A live process's parent and process group from /proc/<pid>/stat, or undefined once it is gone (or a zombie). */
const processStat = (pid: number): { ppid: number; pgrp: number } | undefined => {
  try {
    // "pid (comm) state ppid pgrp ...": comm may hold spaces, so read after the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return state === 'Z' ? undefined : { ppid: Number(ppid), pgrp: Number(pgrp) };
  } catch {
    return undefined;
  }
};

/**
 * Every live process of the stack: those in the launcher's process group (`pgid`) and, as the launcher runs the Temporal
 * server in a group of its own (Ctrl-C must not stop it before the worker), every process descended from them.
 */
const stackProcesses = (pgid: number): number[] => {
  const live = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .flatMap((pid) => {
      const stat = processStat(Number(pid));
      return stat ? [{ pid: Number(pid), ...stat }] : [];
    });
  const found = new Set(live.filter((p) => p.pgrp === pgid).map((p) => p.pid));
  for (let grew = true; grew;) {
    grew = false;
    for (const p of live)
      if (!found.has(p.pid) && found.has(p.ppid)) {
        found.add(p.pid);
        grew = true;
      }
  }
  return [...found];
};

/** A process's pid and command line, to say which one was still running. */
const describeProcess = (pid: number): string => {
  try {
    return `${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim().slice(0, 160)}`;
  } catch {
    return `${pid} (gone)`;
  }
};

const portIsFree = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/** The README, then the guides its docs map numbers (1. [..](docs/x.md)), in that order. */
export function walkthroughPages(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const map = readme.slice(readme.indexOf('## Docs'), readme.indexOf('\n## ', readme.indexOf('## Docs') + 1));
  return ['README.md', ...[...map.matchAll(/^\d+\. \[[^\]]+\]\((docs\/[a-z-]+\.md)\)/gm)].map((m) => m[1]!)];
}

/**
 * The README's and the guides' walk-through, as a new user runs it: every ```bash block marked `<!-- walkthrough -->`, in order, in
 * one shell, with the ports moved to this stack's. Any call answering 4xx/5xx stops it (curl --fail-with-body).
 */
export function readmeWalkthrough(): string {
  const blocks = walkthroughPages().flatMap((page) =>
    [...readFileSync(join(ROOT, page), 'utf8').matchAll(/<!-- walkthrough -->\n+```bash\n([\s\S]*?)```/g)].map(
      (m) => m[1]!,
    ),
  );
  const script = blocks
    .join('\n')
    .replaceAll('http://127.0.0.1:4010', `http://127.0.0.1:${PORTS.SANDBOX_PORT}`)
    .replaceAll('http://127.0.0.1:3000', `http://127.0.0.1:${PORTS.API_PORT}`)
    .replaceAll('http://127.0.0.1:8547', `http://127.0.0.1:${PORTS.EVM_FAUCET_PORT}`)
    .replaceAll('127.0.0.1:7233', `127.0.0.1:${PORTS.TEMPORAL_PORT}`);
  return `set -euo pipefail\ncurl() { command curl --fail-with-body --max-time 60 "$@"; }\n${script}\necho WALKTHROUGH-DONE\n`;
}

const runBash = (script: string, env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> =>
  new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], {
      cwd: ROOT,
      env: { ...process.env, npm_config_loglevel: 'silent', ...env },
      timeout: 300_000,
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.on('close', (code) => resolve({ code, output }));
  });

describe('npm start', () => {
  it('serves the README walk-through, then stops every child on Ctrl-C: within 10 s no process is left and every port is free', async () => {
    const data = mkdtempSync(join(tmpdir(), 'stack-'));
    // `npm start` is `tsx dev/main.ts`; `--import tsx` keeps the launcher one process, the leader of its own group,
    // so a signal to the group reaches it and every child as a terminal's Ctrl-C would.
    const launcher = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'dev/main.ts')], {
      cwd: ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        ...Object.fromEntries(Object.entries(PORTS).map(([k, v]) => [k, String(v)])),
        STACK_DATA_DIR: data,
        LOG_LEVEL: 'warn',
      },
    });
    let output = '';
    launcher.stdout.on('data', (d: Buffer) => {
      output += d.toString();
    });
    launcher.stderr.on('data', (d: Buffer) => {
      output += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => launcher.once('exit', (code) => resolve(code)));
    try {
      await waitFor(
        () => output.includes('Stack is up') || launcher.exitCode !== null,
        240_000,
        'the stack to come up',
      );
      expect(output).toContain('Stack is up');
      expect(output).toMatch(/DID registry 0x[0-9a-fA-F]{40}, USDT 0x[0-9a-fA-F]{40}/);

      const walk = await runBash(readmeWalkthrough(), { STACK_DATA_DIR: data });
      if (walk.code !== 0 || !walk.output.includes('WALKTHROUGH-DONE'))
        throw new Error(`README walk-through failed (exit ${walk.code}):\n${walk.output.slice(-4000)}`);
      expect(walk.output).toMatch(/transfer tr_\S+: (confirmed|finalized) 0\.01 ETH in 0x[0-9a-f]{64}/); // the client's quickstart
      expect(walk.output).toContain('"twoFactorMethods"'); // the profile
      expect(walk.output).toMatch(/"offsetSeconds":86400,"chains":\{"ETHEREUM":\d+,"POLYGON":\d+\}/); // the test clock moved a day
      expect(walk.output).toMatch(/"offsetSeconds":86400[\s\S]*"used_today_krw":"0"/); // and the limit's day started again
      expect(walk.output).toMatch(/"status":"confirmed".*"amount":"0\.1 ETH"/);
      expect(walk.output).toMatch(/"status":"confirmed".*"amount":"0\.5 SOL"/);
      expect(walk.output).toMatch(/"verified":true,"firm_name"/);
      expect(walk.output).toMatch(/"cexAccountId":"cex_/);
      expect(walk.output).toMatch(/"listDate":"2024-09-27".*"status":"current"/); // the sanctions list the worker read
      expect(walk.output.match(/recipient-sanctioned/g)?.length).toBeGreaterThanOrEqual(3); // list hit (prepare, address book), provider hit
      expect(walk.output).toMatch(/"kind":"sanctions_hit"/);
      expect(walk.output).toMatch(/"travel_rule":\{"applies":true,"counterpart":\{"id":"vasp-hanbit"/); // the Travel Rule's prepare
      expect(walk.output).toMatch(/"ownership_proved_at":"20/);
      expect(walk.output).toMatch(/"status":"held_for_review"/); // held by monitoring
      expect(walk.output).toMatch(/"status":"approved","transferId":"tr_[^"]+"[^}]*"decidedBy":"dev"/); // the operator's decision
      // Hosted at Hanbit (TRP, approved), at Gwanghwa (CODE, verified), self-custody (proved).
      expect(walk.output.match(/"status":"(confirmed|finalized)"[^}]*"amount":"0\.3 ETH"/g)?.length).toBe(3);
      // Mapo's transfer to our user over CODE (through the hub, at our Response API): verified.
      expect(walk.output).toMatch(/\{"status":200,"body":\{"result":"verified"/);
      // The operator's export: our transfers' exchanges with Hanbit and Gwanghwa, Mapo's authorization (CODE) and
      // Coinmaru's inquiry (TRP) about our user.
      expect(walk.output).toMatch(
        /"travelRule":\[\["trr_[^"]+","approved","vasp-hanbit"\],\["trr_[^"]+","approved","code:code-gwanghwa"\],\["trr_[^"]+","answered","code:code-mapo"\],\["trr_[^"]+","answered","vasp-coinmaru"\]\]/,
      );
      expect(walk.output).toMatch(/"name":"\[redacted\]"/); // the registration's history, decoded by the operator codec

      const pgid = launcher.pid!;
      const stack = stackProcesses(pgid);
      expect(stack.length).toBeGreaterThan(5); // launcher, Temporal, 2 anvil, sandbox, worker, api
      const temporalServer = stack.find((pid) => describeProcess(pid).includes('server start-dev'));
      expect(temporalServer).toBeDefined();
      const serverGroup = processStat(temporalServer!)?.pgrp;
      expect(serverGroup).toBeDefined();
      expect(serverGroup).not.toBe(pgid); // out of the terminal's Ctrl-C: stopped after the worker
      process.kill(-pgid, 'SIGINT'); // what a terminal's Ctrl-C does
      const running = () => stack.filter((pid) => processStat(pid) !== undefined);
      await waitFor(
        () => running().length === 0,
        10_000,
        async () =>
          `every process of the stack to exit (left: ${running().map(describeProcess).join('; ')})\n` +
          `the launcher's last lines:\n${output.split('\n').slice(-20).join('\n')}`,
      );
      expect(await exited).toBe(0);
      for (const port of Object.values(PORTS)) expect(await portIsFree(port)).toBe(true);
      expect(output).not.toMatch(/IllegalStateError|exited with code [1-9]/);
    } finally {
      for (const pid of launcher.pid ? stackProcesses(launcher.pid) : [])
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      rmSync(data, { recursive: true, force: true });
    }
  }, 600_000);
});
