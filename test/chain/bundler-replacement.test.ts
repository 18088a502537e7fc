import { Wallet } from 'ethers';
import { Bundler } from '../../integrations/evm/bundler';
import { PaymasterSigner } from '../../integrations/evm/paymaster';
import { buildDeployOperation } from '../../integrations/evm/smart-account';
import { singleSignature, userOperationHash } from '../../integrations/evm/user-operation';
import { ANVIL_BUNDLER_KEY, ANVIL_PAYMASTER_SIGNER_KEY } from '../../dev/chains';
import type { EvmNetwork } from '../../platform/networks';
import { startTestChain, type TestChain } from '../helpers/chains';

const hex = (n: bigint) => `0x${n.toString(16)}`;

/**
 * A bundler transaction priced under what blocks came to ask stays in the pool; the bundler replaces it at the same
 * nonce with higher fees, and the user operation runs once. On a real anvil: automine off, the next block's base fee
 * raised past the transaction's fee cap, then the next block mined.
 */
describe('an underpriced bundler transaction is replaced with a higher fee', () => {
  let chain: TestChain;
  beforeAll(async () => {
    chain = await startTestChain(31337);
  });
  afterAll(async () => {
    await chain?.stop();
  });

  it('replaces the stuck transaction at its nonce; only the replacement is mined and the account is deployed once', async () => {
    const { provider } = chain;
    const network = {
      networkId: 'ETHEREUM',
      kind: 'evm',
      chainId: chain.chainId,
      rpcUrl: chain.rpcUrl,
      entryPoint: chain.entryPoint,
      accountFactory: chain.accountFactory,
      paymaster: chain.paymaster,
      didRegistry: chain.didRegistry,
    } as EvmNetwork;
    const owner = Wallet.createRandom();
    const built = await buildDeployOperation(provider, network, owner.address);
    const sponsored = {
      ...built,
      paymasterAndData: new PaymasterSigner(ANVIL_PAYMASTER_SIGNER_KEY).sign(
        built,
        chain,
        Math.floor(Date.now() / 1000) + 3600,
      ),
    };
    const op = {
      ...sponsored,
      signature: singleSignature(
        owner.signingKey.sign(userOperationHash(sponsored, chain.chainId, chain.entryPoint)).serialized,
      ),
    };
    const bundler = new Bundler(new Wallet(ANVIL_BUNDLER_KEY, provider), chain.entryPoint);
    const beneficiary = Wallet.createRandom().address;
    const recorded: string[] = [];
    const record = async (hash: string) => {
      recorded.push(hash);
    };

    await provider.send('evm_setAutomine', [false]);
    const first = await bundler.send(op, beneficiary, record);
    const stuck = await bundler.pendingTransaction(first);
    expect(stuck).not.toBeNull();
    // Blocks come to ask more than it offered: the next one's base fee is 10% over its fee cap, so it cannot be mined.
    await provider.send('anvil_setNextBlockBaseFeePerGas', [hex((stuck!.maxFeePerGas * 11n) / 10n)]);

    const second = await bundler.replace(stuck!, op, beneficiary, record);
    expect(recorded).toEqual([first, second]); // each hash recorded before its broadcast
    await provider.send('evm_mine', []);
    await provider.send('evm_setAutomine', [true]);
    const outcome = await bundler.waitForOutcome(second, 30_000);
    expect(outcome.success).toBe(true);
    const { blockNumber } = (await provider.send('eth_getTransactionReceipt', [second])) as { blockNumber: string };
    const block = (await provider.send('eth_getBlockByNumber', [blockNumber, false])) as { baseFeePerGas: string };
    expect(BigInt(block.baseFeePerGas)).toBeGreaterThan(stuck!.maxFeePerGas); // the first could not have been in it
    const replacement = (await provider.send('eth_getTransactionByHash', [second])) as {
      nonce: string;
      maxFeePerGas: string;
      maxPriorityFeePerGas: string;
    };
    expect(Number(BigInt(replacement.nonce))).toBe(stuck!.nonce);
    expect(BigInt(replacement.maxFeePerGas)).toBeGreaterThanOrEqual((stuck!.maxFeePerGas * 1125n) / 1000n);
    expect(BigInt(replacement.maxPriorityFeePerGas)).toBeGreaterThanOrEqual(
      (stuck!.maxPriorityFeePerGas * 1125n) / 1000n,
    );

    // The stuck one can never be mined now (its nonce is taken), and the operation ran once.
    expect(await provider.send('eth_getTransactionReceipt', [first])).toBeNull();
    expect(await bundler.pendingTransaction(first)).toBeNull();
    expect(await provider.send('eth_getCode', [op.sender, 'latest'])).not.toBe('0x');
    expect(await bundler.nonceOf(op.sender)).toBe(1n);
    expect(await bundler.findOperation(outcome.userOpHash)).toMatchObject({
      outcome: { success: true, txHash: second },
    });
  });
});
