import { randomUUID } from 'node:crypto';
import { Contract, Wallet, type BaseWallet } from 'ethers';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, registerUser, type RegisteredUser } from '../helpers/http';
import { runServiceProcess, waitFor, type ServiceProcess } from '../helpers/processes';
import { ownerApproval } from '../helpers/wallet';

const postgres = testDatabases().find((kind) => kind.name === 'postgresql');

/**
 * Several worker processes hand operations to one chain's bundler at once (PostgreSQL is the multi-process mode; CI
 * runs it): the bundler (Alto, one executor key) packs them into bundles, and every operation lands once.
 */
(postgres ? describe : describe.skip)('two worker processes submitting on one chain to one bundler', () => {
  let stack: TestStack;
  const workers: ServiceProcess[] = [];
  beforeAll(async () => {
    stack = await startTestStack(postgres!, { chains: true });
    await stack.stopWorker(); // only the two processes below run activities
    for (let i = 0; i < 2; i += 1)
      workers.push(runServiceProcess('worker/main.ts', { ...stack.workerProcessEnv(), LOG_LEVEL: 'info' }));
    await waitFor(
      async () => workers.every((w) => w.output().includes('worker started')),
      60_000,
      'two worker processes',
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${workers.map((w) => w.output()).join('\n')}`);
    });
  });
  afterAll(async () => {
    for (const worker of workers) worker.child.kill('SIGTERM');
    await Promise.all(workers.map((w) => w.exited));
    await stack?.stop();
  });

  const prepareDeploy = async (user: RegisteredUser, owner: BaseWallet) => {
    const auth = { authorization: `Bearer ${user.accessToken}` };
    const prepared = await call(`${stack.apiUrl}/v1/wallet/networks/ETHEREUM/deploy/prepare`, {
      headers: auth,
      json: { ownerAddress: owner.address, ...(await ownerApproval(stack, user, owner.address)) },
    });
    expect(prepared.status).toBe(200);
    const slot = prepared.body.items[0];
    return {
      slot,
      address: slot.parameter.domain.accountAddress as string,
      execute: () =>
        call(`${stack.apiUrl}/v1/wallet/networks/ETHEREUM/deploy`, {
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
      status: async () =>
        (await call(`${stack.apiUrl}/v1/wallet/deploy-jobs/${slot.id}`, { headers: auth })).body.status as string,
    };
  };

  it('lands every operation once, with no nonce error in either process', async () => {
    const deploys = await Promise.all(
      Array.from({ length: 8 }, async () => prepareDeploy(await registerUser(stack), Wallet.createRandom())),
    );
    const accepted = await Promise.all(deploys.map((d) => d.execute()));
    expect(accepted.map((a) => a.status)).toEqual(Array(8).fill(202));
    await waitFor(
      async () => (await Promise.all(deploys.map((d) => d.status()))).every((s) => s === 'completed'),
      120_000,
      'every deployment',
    ).catch((error: Error) => {
      throw new Error(
        `${error.message}\n${workers
          .map((w) => w.output())
          .join('\n')
          .slice(-6000)}`,
      );
    });

    const chain = stack.chains[0]!;
    const entryPoint = new Contract(
      chain.entryPoint,
      ['function getNonce(address,uint192) view returns (uint256)'],
      chain.provider,
    );
    for (const { address } of deploys) {
      expect(await chain.provider.getCode(address)).not.toBe('0x');
      expect(await entryPoint.getFunction('getNonce')(address, 0n)).toBe(1n); // executed once
    }
    const logs = workers.map((w) => w.output()).join('\n');
    expect(logs).not.toMatch(
      /nonce (too low|has already been used)|replacement transaction underpriced|already known|NONCE_EXPIRED/i,
    );
    expect(logs).not.toMatch(/Activity failed/i);
  });
});
