import { randomUUID } from 'node:crypto';
import { Contract, Wallet, type BaseWallet } from 'ethers';
import { SignedOperationEntity } from '../../db/entities';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type StackChain, type TestStack } from '../helpers/stack';
import { call, registerUser, type RegisteredUser } from '../helpers/http';
import { runServiceProcess, waitFor, type ServiceProcess } from '../helpers/processes';
import { ownerApproval } from '../helpers/wallet';

/** Deployment completes exactly once although the chain RPC fails or crawls and the worker dies mid-way. */
describe('smart-account deployment under faults', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack(testDatabases()[0]!, { chains: true });
  });
  afterAll(async () => {
    await stack?.stop();
  });
  afterEach(async () => {
    for (const chain of stack.chains) {
      chain.proxy.down = false;
      chain.proxy.delayMs = 0;
    }
    await stack.startWorker();
  });

  const deployOnce = async (user: RegisteredUser, owner: BaseWallet, networkId: string) => {
    const auth = { authorization: `Bearer ${user.accessToken}` };
    const prepared = await call(`${stack.apiUrl}/v1/wallet/networks/${networkId}/deploy/prepare`, {
      headers: auth,
      json: { ownerAddress: owner.address, ...(await ownerApproval(stack, user, owner.address)) },
    });
    expect(prepared.status).toBe(200);
    const slot = prepared.body.items[0];
    return {
      slot,
      address: slot.parameter.domain.accountAddress as string,
      execute: () =>
        call(`${stack.apiUrl}/v1/wallet/networks/${networkId}/deploy`, {
          headers: { ...auth, 'idempotency-key': randomUUID() },
          json: {
            signing: {
              items: [
                {
                  id: slot.id,
                  parameter: slot.parameter,
                  signature: { authResponse: { signature: owner.signingKey.sign(slot.payload).serialized } },
                },
              ],
            },
          },
        }),
    };
  };
  const jobStatus = async (user: RegisteredUser, jobId: string) =>
    (
      await call(`${stack.apiUrl}/v1/wallet/deploy-jobs/${jobId}`, {
        headers: { authorization: `Bearer ${user.accessToken}` },
      })
    ).body;
  /** How many user operations of `sender` the chain executed (the EntryPoint nonce counts them). */
  const executedOperations = async (chain: StackChain, sender: string) =>
    new Contract(
      chain.entryPoint,
      ['function getNonce(address,uint192) view returns (uint256)'],
      chain.provider,
    ).getFunction('getNonce')(sender, 0n);

  it('answers 503 with Retry-After when the chain RPC is down at prepare, storing nothing', async () => {
    const user = await registerUser(stack);
    stack.chains[0]!.proxy.down = true;
    const prepared = await call(`${stack.apiUrl}/v1/wallet/networks/ETHEREUM/deploy/prepare`, {
      headers: { authorization: `Bearer ${user.accessToken}` },
      json: { ownerAddress: Wallet.createRandom().address },
    });
    expect(prepared.status).toBe(503);
    expect(prepared.body.type).toBe('/problems/service-unavailable');
    expect(prepared.headers.get('retry-after')).toBe('5');
    expect(await stack.orm.em.fork().count(SignedOperationEntity, { userId: user.userId, kind: 'deploy' })).toBe(0);
  });

  it('completes once when the chain RPC is down at submission and comes back', async () => {
    const user = await registerUser(stack);
    const owner = Wallet.createRandom();
    const chain = stack.chains[0]!;
    const { slot, address, execute } = await deployOnce(user, owner, 'ETHEREUM');
    chain.proxy.down = true;
    expect((await execute()).status).toBe(202);
    await new Promise((r) => setTimeout(r, 2500)); // the activity fails against the dead RPC and is retried
    expect((await jobStatus(user, slot.id)).status).toBe('submitted');
    chain.proxy.down = false;
    await waitFor(
      async () => (await jobStatus(user, slot.id)).status === 'completed',
      90_000,
      'deployment after RPC recovery',
    );
    expect(await chain.provider.getCode(address)).not.toBe('0x');
    expect(await executedOperations(chain, address)).toBe(1n);
  });

  it('completes once when the worker stops while the RPC crawls, and a new worker picks it up', async () => {
    const user = await registerUser(stack);
    const owner = Wallet.createRandom();
    const chain = stack.chains[1]!;
    const { slot, address, execute } = await deployOnce(user, owner, 'POLYGON');
    chain.proxy.delayMs = 700;
    expect((await execute()).status).toBe(202);
    await new Promise((r) => setTimeout(r, 1500));
    await stack.stopWorker();
    chain.proxy.delayMs = 0;
    await stack.startWorker();
    await waitFor(
      async () => (await jobStatus(user, slot.id)).status === 'completed',
      120_000,
      'deployment after worker restart',
    );
    const job = await jobStatus(user, slot.id);
    expect(job.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await chain.provider.getCode(address)).not.toBe('0x');
    expect(await executedOperations(chain, address)).toBe(1n);
  });

  it('completes once when a worker process is SIGKILLed after handing the operation to the bundler, and another process picks it up', async () => {
    const user = await registerUser(stack);
    const owner = Wallet.createRandom();
    const chain = stack.chains[0]!;
    const { slot, address, execute } = await deployOnce(user, owner, 'ETHEREUM');
    await stack.stopWorker(); // the deployment runs only in the worker processes below
    const env = stack.workerProcessEnv();
    const workers: ServiceProcess[] = [];
    try {
      chain.proxy.delayMs = 400; // every chain call crawls, so the kill lands between the bundler's acceptance and the receipt
      chain.bundlerProxy.methods = [];
      workers.push(runServiceProcess('worker/main.ts', env));
      expect((await execute()).status).toBe(202);
      await waitFor(
        async () => chain.bundlerProxy.methods.includes('eth_sendUserOperation'),
        60_000,
        'user operation handed to the bundler by the worker process',
      ).catch((error) => {
        throw new Error(`${error.message}\n${workers[0]!.output()}`);
      });
      workers[0]!.child.kill('SIGKILL');
      expect(await workers[0]!.exited).toBeNull(); // killed by the signal, no clean shutdown
      expect((await jobStatus(user, slot.id)).status).toBe('submitted');

      chain.proxy.delayMs = 0;
      workers.push(runServiceProcess('worker/main.ts', env));
      await waitFor(
        async () => (await jobStatus(user, slot.id)).status === 'completed',
        120_000,
        'deployment by the second worker process',
      );
      const job = await jobStatus(user, slot.id);
      expect(job.txHash).toBe(
        (await stack.orm.em.fork().findOneOrFail(SignedOperationEntity, { operationId: slot.id })).txHash,
      );
      expect(job.txHash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(await chain.provider.getCode(address)).not.toBe('0x');
      expect(await executedOperations(chain, address)).toBe(1n);
      // The account is the counterfactual one announced at prepare.
      const account = await call(`${stack.apiUrl}/v1/wallet/deploy-jobs/${slot.id}`, {
        headers: { authorization: `Bearer ${user.accessToken}` },
      });
      expect(account.body.accountAddress).toBe(address);
    } finally {
      for (const worker of workers) worker.child.kill('SIGKILL');
      await Promise.all(workers.map((w) => w.exited));
    }
  });
});
