import { randomUUID } from 'node:crypto';
import { Contract, Wallet, type InterfaceAbi } from 'ethers';
import { MERKLE_ROOT_DOMAIN, MERKLE_ROOT_TYPES } from '../../integrations/evm/user-operation';
import { loadArtifact } from '../../contracts/build';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type StackChain, type TestStack } from '../helpers/stack';
import { call, registerUser } from '../helpers/http';
import { bearer, deployAccount, signSlot } from '../helpers/wallet';
import { runServiceProcess, waitFor, type ServiceProcess } from '../helpers/processes';

/**
 * Fault drills for the workflow kinds not drilled in their own suites (registration: service-processes, deploy:
 * deploy-faults, charge: charge, transfers: transfer and transfer-solana): the worker process is SIGKILLed after it
 * recorded a chain transaction and before the workflow finished; a new process completes it, and the chain shows each
 * user operation executed exactly once (the EntryPoint nonce counts them).
 */
describe('worker SIGKILLed mid-workflow: key rotation and DID key', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack(testDatabases().at(-1)!, { chains: true });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const executed = (chain: StackChain, account: string) =>
    new Contract(
      chain.entryPoint,
      ['function getNonce(address,uint192) view returns (uint256)'],
      chain.provider,
    ).getFunction('getNonce')(account, 0n) as Promise<bigint>;
  const ownerOf = (chain: StackChain, account: string) =>
    new Contract(account, loadArtifact('WalletAccount').abi as InterfaceAbi, chain.provider).getFunction(
      'owner',
    )() as Promise<string>;

  /** Runs `start` with the work in a worker process that is SIGKILLed once it handed a user operation to a bundler; a second process finishes. */
  const killedMidway = async (start: () => Promise<void>, finished: () => Promise<boolean>) => {
    await stack.stopWorker();
    const workers: ServiceProcess[] = [];
    const handedOver = async () =>
      stack.chains.some((chain) => chain.bundlerProxy.methods.includes('eth_sendUserOperation'));
    try {
      // Every chain call crawls (the worker's and the bundler's), so the kill lands between acceptance and receipt.
      for (const chain of stack.chains) {
        chain.proxy.delayMs = 400;
        chain.bundlerProxy.methods = [];
      }
      workers.push(runServiceProcess('worker/main.ts', stack.workerProcessEnv()));
      await start();
      await waitFor(handedOver, 60_000, 'user operation handed to the bundler').catch((error: Error) => {
        throw new Error(`${error.message}\n${workers[0]!.output()}`);
      });
      workers[0]!.child.kill('SIGKILL');
      expect(await workers[0]!.exited).toBeNull();
      for (const chain of stack.chains) chain.proxy.delayMs = 0;
      workers.push(runServiceProcess('worker/main.ts', stack.workerProcessEnv()));
      await waitFor(finished, 120_000, 'completed by the second worker process');
    } finally {
      for (const chain of stack.chains) chain.proxy.delayMs = 0;
      for (const worker of workers) worker.child.kill('SIGKILL');
      await Promise.all(workers.map((w) => w.exited));
      await stack.startWorker();
    }
  };

  it('completes a key rotation over two networks once', async () => {
    const user = await registerUser(stack);
    const owner = Wallet.createRandom();
    const accounts = [
      await deployAccount(stack, user, owner, 'ETHEREUM'),
      await deployAccount(stack, user, owner, 'POLYGON'),
    ];
    const next = Wallet.createRandom();
    const [slot] = (
      await call(`${stack.apiUrl}/v1/wallet/keys/rotate/prepare`, {
        headers: bearer(user),
        json: { newOwnerAddress: next.address },
      })
    ).body.items;
    const signature = await owner.signTypedData(MERKLE_ROOT_DOMAIN, MERKLE_ROOT_TYPES, {
      root: slot.parameter.domain.root,
    });
    await killedMidway(
      async () => {
        const accepted = await call(`${stack.apiUrl}/v1/wallet/keys/rotate`, {
          headers: { ...bearer(user), 'idempotency-key': randomUUID() },
          json: {
            signing: {
              items: [{ id: slot.id, parameter: slot.parameter, signature: { authResponse: { signature } } }],
            },
          },
        });
        expect(accepted.status).toBe(202);
      },
      async () =>
        (await call(`${stack.apiUrl}/v1/wallet/keys/rotate/${slot.id}`, { headers: bearer(user) })).body.status ===
        'completed',
    );
    for (const [i, chain] of stack.chains.entries()) {
      expect(await ownerOf(chain, accounts[i]!)).toBe(next.address);
      expect(await executed(chain, accounts[i]!)).toBe(2n); // the deployment and the rotation, each once
    }
  });

  it('adds a DID key once', async () => {
    const user = await registerUser(stack);
    const owner = Wallet.createRandom();
    const account = await deployAccount(stack, user, owner, 'ETHEREUM');
    const key = Wallet.createRandom().signingKey;
    const [slot] = (
      await call(`${stack.apiUrl}/v1/did/keys/assertion/prepare`, {
        headers: bearer(user),
        json: { keyType: 'EcdsaSecp256k1VerificationKey2019', publicKey: key.publicKey },
      })
    ).body.items;
    await killedMidway(
      async () => {
        const accepted = await call(`${stack.apiUrl}/v1/did/keys/assertion`, {
          headers: { ...bearer(user), 'idempotency-key': randomUUID() },
          json: { signing: { items: [signSlot(slot, owner)] } },
        });
        expect(accepted.status).toBe(202);
      },
      async () =>
        (await call(`${stack.apiUrl}/v1/did/keys/operations/${slot.id}`, { headers: bearer(user) })).body.status ===
        'completed',
    );
    expect(await executed(stack.chains[0]!, account)).toBe(2n); // the deployment and the key, each once
  });
});
