import { Contract, JsonRpcProvider, Wallet, concat, hexlify, randomBytes, type InterfaceAbi } from 'ethers';
import { loadArtifact } from '../../contracts/build';
import { EntryPointHarness } from '../helpers/entry-point-harness';
import { RpcProxy } from '../helpers/rpc-proxy';
import { PaymasterSigner } from '../../integrations/evm/paymaster';
import { InclusionWatch, type InclusionSubscription } from '../../integrations/evm/inclusion-watch';
import { ANVIL_PAYMASTER_SIGNER_KEY } from '../../dev/chains';
import { singleSignature, userOperationHash, type UserOperation } from '../../integrations/evm/user-operation';
import { startTestChain, type TestChain } from '../helpers/chains';

/**
 * The inclusion watch on a real chain with the real EntryPoint: a wait is told when a block carries its operation's
 * UserOperationEvent, another wait is not, and a chain RPC that fails is counted while the watch goes on.
 */
describe('InclusionWatch on a real chain', () => {
  let chain: TestChain;
  let harness: EntryPointHarness;
  const factoryArtifact = loadArtifact('WalletAccountFactory');
  const sponsor = new PaymasterSigner(ANVIL_PAYMASTER_SIGNER_KEY);
  const beneficiary = Wallet.createRandom().address;

  beforeAll(async () => {
    chain = await startTestChain(31337);
    harness = new EntryPointHarness(chain.funder, chain.entryPoint);
  });
  afterAll(async () => {
    await chain?.stop();
  });

  /** A new account's deployment as a sponsored user operation, and its userOpHash. */
  const deployment = async (): Promise<{ op: UserOperation; hash: string }> => {
    const owner = Wallet.createRandom();
    const factory = new Contract(chain.accountFactory, factoryArtifact.abi as InterfaceAbi, chain.provider);
    const sender = (await factory.getFunction('getAddress')(owner.address, 0n)) as string;
    const fees = await chain.provider.getFeeData();
    const op: UserOperation = {
      sender,
      nonce: 0n,
      initCode: concat([
        chain.accountFactory,
        factory.interface.encodeFunctionData('createAccount', [owner.address, 0n]),
      ]),
      callData: '0x',
      callGasLimit: 200_000n,
      verificationGasLimit: 1_500_000n,
      preVerificationGas: 60_000n,
      maxFeePerGas: fees.maxFeePerGas! * 2n,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas!,
      paymasterAndData: '0x',
      signature: '0x',
    };
    op.paymasterAndData = sponsor.sign(op, chain, Math.floor(Date.now() / 1000) + 3600);
    const hash = userOperationHash(op, chain.chainId, chain.entryPoint);
    op.signature = singleSignature(owner.signingKey.sign(hash).serialized);
    return { op, hash };
  };

  /** Whether the subscription has been told by the time the watch has read `block` (it never resolves otherwise). */
  const toldBy = async (watch: InclusionWatch, subscription: InclusionSubscription, block: number) => {
    let told = false;
    void subscription.next(10_000).then((how) => (told = how === 'told'));
    for (let i = 0; i < 400 && (watch.head ?? -1) < block; i++) await new Promise((r) => setTimeout(r, 25));
    await new Promise((r) => setImmediate(r));
    return told;
  };

  it('tells the wait whose operation a block carries, not another, and stops when nothing waits', async () => {
    const watch = new InclusionWatch(chain.provider, chain.entryPoint);
    const { op, hash } = await deployment();
    const mine = await watch.subscribe([hexlify(randomBytes(32)), hash.toUpperCase().replace('0X', '0x')]);
    const other = await watch.subscribe([hexlify(randomBytes(32))]);
    expect(watch.head).toBe(await chain.provider.getBlockNumber());

    const outcome = await harness.submit(op, beneficiary);
    expect(outcome.success).toBe(true);
    const block = (await chain.provider.getTransactionReceipt(outcome.txHash))!.blockNumber;
    expect(await toldBy(watch, mine, block)).toBe(true);
    expect(await toldBy(watch, other, block)).toBe(false);
    // Told once: the next wait is for another block carrying it.
    expect(await toldBy(watch, mine, block)).toBe(false);

    mine.close();
    expect(watch.head).not.toBeNull();
    other.close();
    expect(watch.head).toBeNull();
  });

  it('tells a wait of an operation signed again (added) when that one is carried', async () => {
    const watch = new InclusionWatch(chain.provider, chain.entryPoint);
    const { op, hash } = await deployment();
    const waiting = await watch.subscribe([hexlify(randomBytes(32))]);
    waiting.add(hash);
    const outcome = await harness.submit(op, beneficiary);
    const block = (await chain.provider.getTransactionReceipt(outcome.txHash))!.blockNumber;
    expect(await toldBy(watch, waiting, block)).toBe(true);
    waiting.close();
  });

  it('keeps a block seen while nobody waits (an earlier wait ended on its timer) for the next wait', async () => {
    const watch = new InclusionWatch(chain.provider, chain.entryPoint, () => {}, 20);
    const { op, hash } = await deployment();
    const waiting = await watch.subscribe([hash]);
    expect(await waiting.next(10)).toBe('timer'); // nothing carried it yet: the wait ends on its own timer
    const outcome = await harness.submit(op, beneficiary);
    const block = (await chain.provider.getTransactionReceipt(outcome.txHash))!.blockNumber;
    for (let i = 0; i < 200 && (watch.head ?? -1) < block; i++) await new Promise((r) => setTimeout(r, 25));
    // Seen while no wait was pending: the next wait is told at once, not after its 10 s.
    expect(await Promise.race([waiting.next(10_000), new Promise((r) => setTimeout(() => r('late'), 2_000))])).toBe(
      'told',
    );
    waiting.close();
  });

  it('reads fewer blocks at a time when the RPC refuses a range of logs, and catches up', async () => {
    // An RPC that answers eth_getLogs for at most two blocks at a time (providers cap ranges).
    const refusals: Array<[number, number]> = [];
    const limited = new Proxy(chain.provider, {
      get(target, key) {
        if (key === 'getLogs')
          return async (filter: { fromBlock: number; toBlock: number }) => {
            if (filter.toBlock - filter.fromBlock + 1 > 2) {
              refusals.push([filter.fromBlock, filter.toBlock]);
              throw new Error('query exceeds max block range 2');
            }
            return target.getLogs(filter);
          };
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    let failures = 0;
    const watch = new InclusionWatch(limited, chain.entryPoint, () => (failures += 1), 20);
    const { op, hash } = await deployment();
    const waiting = await watch.subscribe([hash]);
    await chain.provider.send('anvil_mine', ['0x6']); // the watch falls six blocks and more behind
    const outcome = await harness.submit(op, beneficiary);
    const block = (await chain.provider.getTransactionReceipt(outcome.txHash))!.blockNumber;
    expect(await toldBy(watch, waiting, block)).toBe(true);
    expect(refusals.length).toBeGreaterThan(0);
    expect(failures).toBe(refusals.length);
    waiting.close();
  });

  it('counts a chain RPC that fails, goes on once it answers, and refuses a wait when it cannot read the head', async () => {
    const proxy = new RpcProxy(chain.rpcUrl);
    const provider = new JsonRpcProvider(await proxy.start(), chain.chainId, { staticNetwork: true });
    let failures = 0;
    const watch = new InclusionWatch(provider, chain.entryPoint, () => (failures += 1));
    try {
      proxy.down = true;
      await expect(watch.subscribe([hexlify(randomBytes(32))])).rejects.toThrow();
      expect(watch.head).toBeNull();
      expect(failures).toBe(1); // the first read of the head, counted too

      proxy.down = false;
      const { op, hash } = await deployment();
      const waiting = await watch.subscribe([hash]);
      proxy.refuse.add('eth_getLogs');
      const outcome = await harness.submit(op, beneficiary);
      const block = (await chain.provider.getTransactionReceipt(outcome.txHash))!.blockNumber;
      for (let i = 0; i < 100 && failures === 1; i++) await new Promise((r) => setTimeout(r, 25));
      expect(failures).toBeGreaterThan(1);
      expect(watch.head).toBeLessThan(block); // nothing read past what it could not read
      proxy.refuse.clear();
      expect(await toldBy(watch, waiting, block)).toBe(true);
      waiting.close();
    } finally {
      provider.destroy();
      await proxy.stop();
    }
  });
});
