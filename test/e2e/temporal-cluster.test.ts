import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Contract, NonceManager, Wallet, parseEther, type InterfaceAbi } from 'ethers';
import { generateKeyPairSigner } from '@solana/kit';
import { startPostgresInstance, POSTGRES_SUPERUSER, type PostgresInstance } from '../../dev/postgres-instance';
import { startTemporalCluster, type RunningCluster } from '../../dev/temporal-cluster';
import { resolveTemporalCli } from '../../dev/temporal-cli';
import { makeIdCardPng } from '../../sandbox/id-card-image';
import { postgres } from '../helpers/databases';
import { freePort } from '../helpers/global-setup';
import { startTestStack, type StackChain, type TestStack } from '../helpers/stack';
import { TcpBalancer } from '../helpers/tcp-proxy';
import { runServiceProcess, waitFor, type ServiceProcess } from '../helpers/processes';
import { backupBody, newPerson, verifyIdentity, type HttpResult, type Person } from '../helpers/http';
import { openBankAccount, bankAccountLog, consentAtBank, type SandboxAccount } from '../helpers/bank';
import { encryptPin, transferPin } from '../helpers/pin';
import { signSlot } from '../helpers/wallet';
import { INCLUDED } from '../helpers/transfers';
import { TransferEntity } from '../../db/entities';
const USERS = 6;
const CHARGES_PER_USER = 2;
const EVM_TRANSFERS_PER_USER = 2;
const CHARGE_KRW = 10_000;
const PIN = '582046';

/**
 * Production mode on one machine: the Temporal server itself (not the dev server) on a PostgreSQL server of its own,
 * which also holds the service's database; two API processes behind a balancer and two worker processes sending user
 * operations to each chain's bundler (Alto). Under a load of registrations, charges and transfers on ETHEREUM, POLYGON and SOLANA, one
 * API process and one worker process are SIGKILLed and the PostgreSQL server restarts. Clients retry as an app does
 * (same Idempotency-Key on a cut connection, a 503 or a 409 in progress). Every request ends accepted, and the bank's
 * log, the chains, the ledger and the history each show every operation exactly once.
 */
describe('production mode: Temporal cluster on PostgreSQL, two api and two worker processes, faults under load', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wallet-cluster-'));
  chmodSync(dir, 0o755); // the cluster's PostgreSQL runs as the postgres user when the tests run as root
  let pg: PostgresInstance;
  let cluster: RunningCluster;
  let stack: TestStack;
  let balancer: TcpBalancer;
  const apis: ServiceProcess[] = [];
  const workers: ServiceProcess[] = [];
  const figures = { retries: 0, cutConnections: 0, requests: 0, events: [] as Array<{ at: number; what: string }> };
  let started = 0;
  const event = (what: string) => figures.events.push({ at: Date.now() - started, what });

  beforeAll(async () => {
    pg = startPostgresInstance(join(dir, 'postgresql'), await freePort());
    cluster = await startTemporalCluster(
      {
        database: { host: '127.0.0.1', port: pg.port, user: POSTGRES_SUPERUSER },
        frontendPort: await freePort(),
        dir: join(dir, 'temporal'),
      },
      resolveTemporalCli({ build: false }),
    );
    stack = await startTestStack(postgres(pg.url), {
      chains: true,
      solana: true,
      // A record left in progress by the killed API process is taken over after 20 s (longer than a transfer's wait).
      env: { TEMPORAL_ADDRESS: cluster.address, IDEMPOTENCY_LOCK_SECONDS: '20', TRANSFER_WAIT_SECONDS: '8' },
    });
    await stack.stopWorker(); // the worker processes do all the work
    const ports = [await freePort(), await freePort()];
    for (const port of ports) apis.push(runServiceProcess('api/main.ts', stack.apiProcessEnv(port)));
    for (let i = 0; i < 2; i += 1) workers.push(runServiceProcess('worker/main.ts', stack.workerProcessEnv()));
    balancer = new TcpBalancer(ports.map((port) => ({ host: '127.0.0.1', port })));
    await balancer.start();
    for (const port of ports) {
      await waitFor(
        async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200,
        90_000,
        `api on ${port}`,
      ).catch((error: Error) => {
        throw new Error(`${error.message}\n${apis.map((a) => a.output()).join('\n')}`);
      });
    }
    stack.pointSandboxAt(balancer.url);
  }, 300_000);

  afterAll(async () => {
    // The processes' own logs, for whoever reads a failure: .data/cluster-drill/
    const logs = join(__dirname, '..', '..', '.data', 'cluster-drill');
    mkdirSync(logs, { recursive: true });
    for (const [name, list] of [
      ['api', apis],
      ['worker', workers],
    ] as const) {
      list.forEach((service, i) => writeFileSync(join(logs, `${name}-${i + 1}.log`), service.output()));
    }
    for (const service of [...apis, ...workers]) service.child.kill('SIGKILL');
    await Promise.all([...apis, ...workers].map((s) => s.exited));
    await balancer?.stop();
    await stack?.stop();
    await cluster?.stop();
    pg?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  /** One request as an app sends it through the balancer, retried on a cut connection, 502-504, or 409 in progress. */
  async function send<T = any>(
    path: string,
    init: { method?: string; headers?: Record<string, string>; json?: unknown; form?: FormData } = {},
  ): Promise<HttpResult<T>> {
    const deadline = Date.now() + 120_000;
    for (;;) {
      figures.requests += 1;
      try {
        const headers: Record<string, string> = { ...init.headers };
        let body: string | FormData | undefined;
        if (init.json !== undefined) {
          headers['content-type'] = 'application/json';
          body = JSON.stringify(init.json);
        }
        if (init.form) body = init.form;
        const response = await fetch(`${balancer.url}${path}`, {
          method: init.method ?? (body ? 'POST' : 'GET'),
          headers,
          body,
        });
        const text = await response.text();
        const parsed = text ? JSON.parse(text) : undefined;
        const inProgress = response.status === 409 && /idempotency-request-in-progress/.test(text);
        if (![502, 503, 504].includes(response.status) && !inProgress)
          return { status: response.status, body: parsed, headers: response.headers };
      } catch {
        figures.cutConnections += 1; // the API process that held the connection died
      }
      if (Date.now() > deadline) throw new Error(`${path} still failing after 120 s`);
      figures.retries += 1;
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  const expectStatus = (result: HttpResult, status: number | number[], what: string) => {
    if (![status].flat().includes(result.status))
      throw new Error(`${what}: ${result.status} ${JSON.stringify(result.body)}`);
    return result.body;
  };
  /** Each request its own Idempotency-Key, kept across its retries. */
  const keyed = (headers: Record<string, string> = {}) => ({ 'idempotency-key': randomUUID(), ...headers });

  interface User {
    accessToken: string;
    person: Person;
  }
  const auth = (user: User) => ({ authorization: `Bearer ${user.accessToken}` });

  async function register(): Promise<User> {
    const person = newPerson();
    const deviceId = randomUUID();
    const { passToken } = await verifyIdentity(stack, person);
    const { regId } = expectStatus(
      await send('/v1/account/register', { headers: keyed({ 'x-device-id': deviceId }), json: { passToken } }),
      201,
      'register',
    );
    const form = new FormData();
    form.set('idCardType', 'resident_id');
    form.set('idCardImage', new Blob([makeIdCardPng(person)], { type: 'image/png' }), 'card.png');
    expectStatus(
      await send(`/v1/account/register/${regId}/ekyc`, { headers: keyed({ 'x-pass-token': passToken }), form }),
      200,
      'eKYC',
    );
    expectStatus(
      await send(`/v1/account/register/${regId}/backup`, {
        headers: keyed({ 'x-pass-token': passToken }),
        json: backupBody(),
      }),
      200,
      'backup',
    );
    // The PIN within the registration, before its first token (409: set by a cut request).
    expectStatus(
      await send(`/v1/account/register/${regId}/pin`, {
        headers: { 'x-pass-token': passToken },
        json: { pin: await encryptPin(stack, PIN) },
      }),
      [201, 409],
      'PIN',
    );
    const token = expectStatus(
      await send('/v1/auth/token', {
        headers: { 'x-device-id': deviceId, 'x-pass-token': passToken },
        json: { grantType: 'registration', regId },
      }),
      200,
      'token',
    );
    return { accessToken: token.accessToken as string, person };
  }

  /** A consent at the bank, started again after an answer the API could not give (a cut connection, 5xx). */
  async function consented(user: User, account: SandboxAccount): Promise<{ status: string }> {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const answer = await consentAtBank(stack, user, account).catch((error: Error) => {
        figures.cutConnections += 1;
        return { status: 0, body: error.message };
      });
      if (answer.status === 200) return answer.body;
      if (answer.status !== 0 && answer.status < 500)
        throw new Error(`consent: ${answer.status} ${JSON.stringify(answer.body)}`);
      if (Date.now() > deadline) throw new Error('the consent still failing after 120 s');
      figures.retries += 1;
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  async function chargeTwice(user: User): Promise<{ account: SandboxAccount; charges: string[] }> {
    const account = await openBankAccount(stack, user.person, 1_000_000);
    const sent = expectStatus(
      await send('/api/v1/bank/send-won', {
        headers: keyed(auth(user)),
        json: { bank_code: account.bankCode, account_no: account.accountNo },
      }),
      200,
      'send-won',
    ).data;
    const code = (await bankAccountLog(stack, account)).transactions.find((t) => t.amount === 1)!.printContent.slice(2);
    expectStatus(
      await send('/api/v1/bank/send-won/confirm', {
        headers: auth(user),
        json: { verification_id: sent.verification_id, code },
      }),
      [200, 409],
      'confirm',
    ); // 409: confirmed by a cut request
    // The person's consent at the bank (a browser at the bank's pages); the API's return route may be cut or find the
    // database restarting (503): the person starts the consent again, as the app offers.
    expect((await consented(user, account)).status).toBe('active');
    const charges: string[] = [];
    for (let i = 0; i < CHARGES_PER_USER; i += 1) {
      const started = await send('/api/v1/charge/execute', {
        headers: keyed(auth(user)),
        json: { source: 'KB국민은행', amount: String(CHARGE_KRW), currency: 'KRW' },
      });
      charges.push(expectStatus(started, 202, 'charge').data.charge_id);
    }
    return { account, charges };
  }

  /**
   * This test's own funder (anvil's sixth development account, which nothing else uses), counting its nonces itself
   * (NonceManager): ethers answers a repeated getTransactionCount within 250 ms from its cache, a stale nonce.
   */
  const FUNDER_KEY = '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba';
  const funders = new Map<number, NonceManager>();
  const fund = async (chain: StackChain, to: string) => {
    if (!funders.has(chain.chainId))
      funders.set(chain.chainId, new NonceManager(new Wallet(FUNDER_KEY, chain.provider)));
    await (await funders.get(chain.chainId)!.sendTransaction({ to, value: parseEther('1') })).wait();
  };

  async function transfer(
    user: User,
    body: { to_address: string; network: string; token: string; amount: string },
  ): Promise<string> {
    const key = randomUUID();
    const pin = await transferPin(stack, PIN, body, key);
    const answer = await send('/api/v1/transfer/crypto/execute', {
      headers: { ...auth(user), 'idempotency-key': key },
      json: { ...body, pin },
    });
    return expectStatus(answer, [200, 202], `transfer on ${body.network}`).data.transfer_id;
  }

  async function evmTransfers(
    user: User,
    networkId: 'ETHEREUM' | 'POLYGON',
  ): Promise<{ account: string; recipients: string[]; transfers: string[] }> {
    const owner = Wallet.createRandom();
    const prepared = expectStatus(
      await send(`/v1/wallet/networks/${networkId}/deploy/prepare`, {
        headers: keyed(auth(user)), // its PIN approves the owner key once: a retry presents it under the same key
        json: {
          ownerAddress: owner.address,
          pin: await encryptPin(stack, PIN, { request: { action: 'owner_set', owner_address: owner.address } }),
        },
      }),
      200,
      'deploy prepare',
    );
    const slot = prepared.items[0];
    expectStatus(
      await send(`/v1/wallet/networks/${networkId}/deploy`, {
        headers: keyed(auth(user)),
        json: { signing: { items: [signSlot(slot, owner)] } },
      }),
      202,
      'deploy',
    );
    await waitFor(
      async () =>
        (await send(`/v1/wallet/deploy-jobs/${slot.id}`, { headers: auth(user) })).body.status === 'completed',
      180_000,
      'deployment',
    );
    const account = slot.parameter.domain.accountAddress as string;
    await fund(stack.chains[networkId === 'ETHEREUM' ? 0 : 1]!, account);
    const recipients: string[] = [];
    const transfers: string[] = [];
    for (let i = 0; i < EVM_TRANSFERS_PER_USER; i += 1) {
      const recipient = Wallet.createRandom().address;
      recipients.push(recipient);
      transfers.push(
        await transfer(user, {
          to_address: recipient,
          network: networkId,
          token: networkId === 'ETHEREUM' ? 'ETH' : 'POL',
          amount: '0.01',
        }),
      );
    }
    return { account, recipients, transfers };
  }

  async function solanaTransfer(user: User): Promise<{ recipient: string; transfer: string }> {
    const opened = await send('/v1/wallet/networks/SOLANA/wallet', { method: 'POST', headers: auth(user) });
    if (![200, 201].includes(opened.status))
      throw new Error(`SOLANA wallet: ${opened.status} ${JSON.stringify(opened.body)}`);
    const recipient = (await generateKeyPairSigner()).address as string;
    return {
      recipient,
      transfer: await transfer(user, { to_address: recipient, network: 'SOLANA', token: 'SOL', amount: '0.1' }),
    };
  }

  it('completes every accepted request exactly once through SIGKILLed api and worker processes and a PostgreSQL restart', async () => {
    started = Date.now();
    let registered = 0;
    const load = Promise.all(
      Array.from({ length: USERS }, async (_, i) => {
        const user = await register();
        registered += 1;
        event(`user ${i} registered`);
        const [bank, evm, sol] = await Promise.all([
          chargeTwice(user),
          evmTransfers(user, i % 2 === 0 ? 'ETHEREUM' : 'POLYGON'),
          solanaTransfer(user),
        ]);
        event(`user ${i} accepted everything`);
        return { user, bank, evm, sol, networkId: i % 2 === 0 ? 'ETHEREUM' : 'POLYGON' };
      }),
    );
    const faults = (async () => {
      await waitFor(() => registered >= 1, 180_000, 'a first registration');
      apis[0]!.child.kill('SIGKILL');
      workers[0]!.child.kill('SIGKILL');
      event('SIGKILL api 1 and worker 1');
      await new Promise((r) => setTimeout(r, 4000));
      pg.restart();
      event('PostgreSQL restarted');
    })();
    const [results] = await Promise.all([load, faults]);
    expect(await apis[0]!.exited).toBeNull(); // killed, not exited
    expect(await workers[0]!.exited).toBeNull();

    // Settle: charges completed, transfers included on chain.
    for (const { user, bank, evm, sol } of results) {
      for (const id of bank.charges) {
        await waitFor(
          async () => (await send(`/api/v1/charge/${id}`, { headers: auth(user) })).body.data.status === 'completed',
          180_000,
          `charge ${id}`,
        );
      }
      for (const id of [...evm.transfers, sol.transfer]) {
        await waitFor(
          async () =>
            INCLUDED.test((await send(`/api/v1/transfer/crypto/${id}`, { headers: auth(user) })).body.data.status),
          180_000,
          `transfer ${id}`,
        );
      }
    }
    event('everything settled');

    for (const { user, bank, evm, sol, networkId } of results) {
      // The bank: one 1 KRW deposit and one withdrawal per charge.
      const log = await bankAccountLog(stack, bank.account);
      expect(log.transactions.filter((t) => t.amount === 1)).toHaveLength(1);
      const withdrawals = log.transactions.filter((t) => t.printContent === '월렛 충전');
      expect(withdrawals.map((t) => Math.abs(t.amount))).toEqual(Array(CHARGES_PER_USER).fill(CHARGE_KRW));
      expect(log.balance).toBe(1_000_000 + 1 - CHARGES_PER_USER * CHARGE_KRW);
      // The ledger: credited once per charge.
      const krw = (await send('/api/v1/balance', { headers: auth(user) })).body.data.balances.find(
        (b: { currency: string }) => b.currency === 'KRW',
      );
      expect(krw.amount).toBe(String(CHARGES_PER_USER * CHARGE_KRW));
      // The chains: each recipient got its amount once; the EntryPoint counted the deployment and each transfer once.
      const chain = stack.chains[networkId === 'ETHEREUM' ? 0 : 1]!;
      for (const recipient of evm.recipients)
        expect(await chain.provider.getBalance(recipient)).toBe(parseEther('0.01'));
      const entryPoint = new Contract(
        chain.entryPoint,
        ['function getNonce(address,uint192) view returns (uint256)'] as InterfaceAbi,
        chain.provider,
      );
      // getNonce answers key << 64 | sequence: the sequence is how many operations ran under the key.
      const nonce = async (key: bigint) =>
        ((await entryPoint.getFunction('getNonce')(evm.account, key)) as bigint) & ((1n << 64n) - 1n);
      expect(await nonce(0n)).toBe(1n); // deployed once
      // Each transfer's operation ran once, on the nonce lane it held: the lanes' sequences add up to the transfers.
      const signed = await stack.orm.em.fork().find(TransferEntity, { transferId: { $in: evm.transfers } });
      const lanes = new Set(signed.map((t) => BigInt(t.userOperation!.nonce!) >> 64n));
      let executed = 0n;
      for (const lane of lanes) executed += await nonce(lane);
      expect(executed).toBe(BigInt(evm.transfers.length));
      expect(stack.solana!.balance(sol.recipient)).toBe(100_000_000n);
      // The history: each charge and transfer once.
      const history = (await send('/api/v1/transactions?limit=50', { headers: auth(user) })).body.data
        .transactions as Array<{ type: string; reference: string }>;
      const references = history.map((t) => t.reference);
      expect(references.sort()).toEqual([...bank.charges, ...evm.transfers, sol.transfer].sort());
    }

    // Temporal: no workflow of this run failed, timed out or was terminated.
    const count = async (status: string) =>
      (await stack.temporal.workflow.count(`TaskQueue="${stack.taskQueue}" AND ExecutionStatus="${status}"`)).count;
    expect([await count('Failed'), await count('TimedOut'), await count('Terminated')]).toEqual([0, 0, 0]);
    const completed = await count('Completed');
    expect(completed).toBeGreaterThanOrEqual(USERS * (1 + CHARGES_PER_USER + 1 + EVM_TRANSFERS_PER_USER + 1));

    const summary = {
      users: USERS,
      charges: USERS * CHARGES_PER_USER,
      evmTransfers: USERS * EVM_TRANSFERS_PER_USER,
      solanaTransfers: USERS,
      completedWorkflows: completed,
      requests: figures.requests,
      retries: figures.retries,
      cutConnections: figures.cutConnections,
      seconds: (Date.now() - started) / 1000,
      events: figures.events,
    };
    mkdirSync(join(__dirname, '..', '..', '.data'), { recursive: true });
    writeFileSync(join(__dirname, '..', '..', '.data', 'cluster-drill.json'), `${JSON.stringify(summary, null, 2)}\n`);
  }, 900_000);
});
