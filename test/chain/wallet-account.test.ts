import {
  Contract,
  HDNodeWallet,
  Wallet,
  ZeroAddress,
  concat,
  parseEther,
  type BaseWallet,
  type InterfaceAbi,
} from 'ethers';
import { loadArtifact } from '../../contracts/build';
import { EntryPointHarness } from '../helpers/entry-point-harness';
import { PaymasterSigner, sponsorshipHash } from '../../integrations/evm/paymaster';
import { ANVIL_PAYMASTER_SIGNER_KEY } from '../../dev/chains';
import {
  USER_OPERATION_TYPES,
  merkleRootDigest,
  merkleSignature,
  packUserOperation,
  singleSignature,
  transferSignature,
  userOperationDomain,
  userOperationHash,
  userOperationMerkleTree,
  type UserOperation,
} from '../../integrations/evm/user-operation';
import { startTestChain, type TestChain } from '../helpers/chains';

const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';

/**
 * WalletAccount on two real chains: deployment through EntryPoint.handleOps with one EIP-712 signature,
 * owner rotation on both chains with one merkle-root signature, and the new key in control afterwards.
 */
describe('WalletAccount on real chains', () => {
  const factoryArtifact = loadArtifact('WalletAccountFactory');
  const accountArtifact = loadArtifact('WalletAccount');
  let chains: TestChain[];
  const owner = Wallet.createRandom();
  const newOwner = Wallet.createRandom();
  const beneficiary = Wallet.createRandom().address;

  beforeAll(async () => {
    chains = await Promise.all([startTestChain(31337), startTestChain(31338)]);
  });
  afterAll(async () => {
    await Promise.all((chains ?? []).map((c) => c.stop()));
  });

  const factoryOf = (chain: TestChain) =>
    new Contract(chain.accountFactory, factoryArtifact.abi as InterfaceAbi, chain.provider);
  const accountAt = (chain: TestChain, address: string) =>
    new Contract(address, accountArtifact.abi as InterfaceAbi, chain.provider);
  const bundlers = new Map<TestChain, EntryPointHarness>();
  /** One bundler per chain, as in the worker: it keeps track of its own transaction nonces. */
  const bundlerOf = (chain: TestChain) => {
    if (!bundlers.has(chain)) bundlers.set(chain, new EntryPointHarness(chain.funder, chain.entryPoint));
    return bundlers.get(chain)!;
  };

  /** eth_getCode straight from the node (ethers answers a repeated call from a 250 ms cache). */
  const codeAt = (chain: TestChain, address: string) =>
    chain.provider.send('eth_getCode', [address, 'latest']) as Promise<string>;
  const sponsor = new PaymasterSigner(ANVIL_PAYMASTER_SIGNER_KEY);
  const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;
  /** An operation with the given fields, its gas sponsored by our paymaster (as the worker does before anyone signs). */
  const baseOperation = async (
    chain: TestChain,
    sender: string,
    fields: Partial<UserOperation>,
  ): Promise<UserOperation> => {
    const fees = await chain.provider.getFeeData();
    const op: UserOperation = {
      sender,
      nonce: await bundlerOf(chain).nonceOf(sender),
      initCode: '0x',
      callData: '0x',
      callGasLimit: 200_000n,
      verificationGasLimit: 600_000n,
      preVerificationGas: 60_000n,
      maxFeePerGas: fees.maxFeePerGas! * 2n,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas!,
      paymasterAndData: '0x',
      signature: '0x',
      ...fields,
    };
    return { ...op, paymasterAndData: sponsor.sign(op, chain, inAnHour()) };
  };
  const changeOwnerCall = (address: string, to: string) => {
    const account = accountAt(chains[0]!, address);
    return account.interface.encodeFunctionData('execute', [
      address,
      0n,
      account.interface.encodeFunctionData('changeOwner', [to]),
    ]);
  };

  it('has the same counterfactual address on both chains', async () => {
    const addresses = await Promise.all(chains.map((c) => factoryOf(c).getFunction('getAddress')(owner.address, 0n)));
    expect(addresses[0]).toBe(addresses[1]);
    for (const chain of chains) expect(await chain.provider.getCode(addresses[0] as string)).toBe('0x');
  });

  it('computes the userOpHash exactly as EntryPoint v0.8 does, and signs it as an ethers Wallet would', async () => {
    const chain = chains[0]!;
    const sender = (await factoryOf(chain).getFunction('getAddress')(owner.address, 7n)) as string;
    const op = await baseOperation(chain, sender, { callData: '0x1234', nonce: 5n });
    const hash = userOperationHash(op, chain.chainId, chain.entryPoint);
    expect(hash).toBe(await bundlerOf(chain).onChainHash(op));
    const { signature: _unsigned, ...message } = packUserOperation(op);
    const viaWallet = await owner.signTypedData(
      userOperationDomain(chain.chainId, chain.entryPoint),
      USER_OPERATION_TYPES,
      message,
    );
    expect(viaWallet).toBe(owner.signingKey.sign(hash).serialized);
  });

  it('computes the merkle-root digest exactly as the account contract does', async () => {
    const root = (await userOperationMerkleTree([`0x${'11'.repeat(32)}`, `0x${'22'.repeat(32)}`])).root;
    const implementation = (await factoryOf(chains[0]!).getFunction('accountImplementation')()) as string;
    expect(await accountAt(chains[0]!, implementation).getFunction('merkleRootDigest')(root)).toBe(
      merkleRootDigest(root),
    );
  });

  it('deploys the account on both chains, rotates the owner on both with one merkle-root signature, then obeys only the new key', async () => {
    const sender = (await factoryOf(chains[0]!).getFunction('getAddress')(owner.address, 0n)) as string;
    for (const chain of chains) {
      const initCode = concat([
        chain.accountFactory,
        factoryOf(chain).interface.encodeFunctionData('createAccount', [owner.address, 0n]),
      ]);
      const op = await baseOperation(chain, sender, { initCode, verificationGasLimit: 1_500_000n });
      op.signature = singleSignature(
        owner.signingKey.sign(userOperationHash(op, chain.chainId, chain.entryPoint)).serialized,
      );
      const outcome = await bundlerOf(chain).submit(op, beneficiary);
      expect(outcome.success).toBe(true);
      expect(await codeAt(chain, sender)).not.toBe('0x');
      expect(await accountAt(chain, sender).getFunction('owner')()).toBe(owner.address);
    }

    // One signature over the root of both networks' rotation operations.
    const operations = await Promise.all(
      chains.map((chain) => baseOperation(chain, sender, { callData: changeOwnerCall(sender, newOwner.address) })),
    );
    const hashes = operations.map((op, i) => userOperationHash(op, chains[i]!.chainId, chains[i]!.entryPoint));
    const tree = await userOperationMerkleTree(hashes);
    const rootSignature = await owner.signTypedData(
      { name: 'ERC4337', version: '1' },
      { UserOperationMerkleRoot: [{ name: 'root', type: 'bytes32' }] },
      { root: tree.root },
    );
    for (const [i, chain] of chains.entries()) {
      const op = { ...operations[i]!, signature: merkleSignature(tree.root, tree.proofOf(hashes[i]!), rootSignature) };
      expect((await bundlerOf(chain).submit(op, beneficiary)).success).toBe(true);
      expect(await accountAt(chain, sender).getFunction('owner')()).toBe(newOwner.address);
    }

    // The old key no longer validates; the new one does.
    const chain = chains[0]!;
    const stale = await baseOperation(chain, sender, { callData: changeOwnerCall(sender, owner.address) });
    stale.signature = singleSignature(
      owner.signingKey.sign(userOperationHash(stale, chain.chainId, chain.entryPoint)).serialized,
    );
    await expect(bundlerOf(chain).submit(stale, beneficiary)).rejects.toThrow(/AA24 signature error/);
    const fresh = await baseOperation(chain, sender, { callData: '0x' });
    fresh.signature = singleSignature(
      newOwner.signingKey.sign(userOperationHash(fresh, chain.chainId, chain.entryPoint)).serialized,
    );
    expect((await bundlerOf(chain).submit(fresh, beneficiary)).success).toBe(true);
  });

  it('refuses a merkle signature whose proof does not place the operation under the signed root', async () => {
    const chain = chains[1]!;
    const sender = (await factoryOf(chain).getFunction('getAddress')(owner.address, 0n)) as string;
    const op = await baseOperation(chain, sender, { callData: '0x' });
    const other = await userOperationMerkleTree([`0x${'aa'.repeat(32)}`, `0x${'bb'.repeat(32)}`]);
    const signature = await newOwner.signTypedData(
      { name: 'ERC4337', version: '1' },
      { UserOperationMerkleRoot: [{ name: 'root', type: 'bytes32' }] },
      { root: other.root },
    );
    op.signature = merkleSignature(other.root, other.proofOf(`0x${'aa'.repeat(32)}`), signature);
    await expect(bundlerOf(chain).submit(op, beneficiary)).rejects.toThrow(/AA24 signature error/);
  });

  it('computes the sponsorship hash exactly as WalletPaymaster.getHash does', async () => {
    const chain = chains[0]!;
    const op = await baseOperation(chain, Wallet.createRandom().address, { callData: '0xabcd', nonce: 3n });
    const paymaster = new Contract(
      chain.paymaster,
      loadArtifact('WalletPaymaster').abi as InterfaceAbi,
      chain.provider,
    );
    const validUntil = inAnHour();
    expect(await paymaster.getFunction('getHash')(packUserOperation(op), validUntil, 0)).toBe(
      sponsorshipHash(op, chain.chainId, chain.paymaster, validUntil, 0),
    );
  });

  it('pays only for operations its sponsor key signed, unchanged and unexpired; the account never needs a deposit', async () => {
    const chain = chains[1]!;
    const holder = Wallet.createRandom();
    const sender = (await factoryOf(chain).getFunction('getAddress')(holder.address, 0n)) as string;
    const initCode = concat([
      chain.accountFactory,
      factoryOf(chain).interface.encodeFunctionData('createAccount', [holder.address, 0n]),
    ]);
    const signed = (op: UserOperation) => ({
      ...op,
      signature: singleSignature(
        holder.signingKey.sign(userOperationHash(op, chain.chainId, chain.entryPoint)).serialized,
      ),
    });
    const deploy = await baseOperation(chain, sender, { initCode, verificationGasLimit: 1_500_000n });

    // Another key's sponsorship, an expired one, and one whose operation was changed after signing are refused.
    const forged = {
      ...deploy,
      paymasterAndData: new PaymasterSigner(Wallet.createRandom().privateKey).sign(deploy, chain, inAnHour()),
    };
    await expect(bundlerOf(chain).submit(signed(forged), beneficiary)).rejects.toThrow(/AA34 signature error/);
    const expired = { ...deploy, paymasterAndData: sponsor.sign(deploy, chain, Math.floor(Date.now() / 1000) - 60) };
    await expect(bundlerOf(chain).submit(signed(expired), beneficiary)).rejects.toThrow(/AA32 paymaster expired/);
    const altered = { ...deploy, callGasLimit: deploy.callGasLimit + 1n };
    await expect(bundlerOf(chain).submit(signed(altered), beneficiary)).rejects.toThrow(/AA34 signature error/);

    const paymaster = new Contract(
      chain.paymaster,
      loadArtifact('WalletPaymaster').abi as InterfaceAbi,
      chain.provider,
    );
    const before = (await paymaster.getFunction('getDeposit')()) as bigint;
    const outcome = await bundlerOf(chain).submit(signed(deploy), beneficiary);
    expect(outcome.success).toBe(true);
    expect(await codeAt(chain, sender)).not.toBe('0x');
    // The paymaster paid exactly what the operation cost; the account holds no deposit at all.
    expect(await paymaster.getFunction('getDeposit')()).toBe(before - outcome.actualGasCost);
    expect(await bundlerOf(chain).depositOf(sender)).toBe(0n);
  });

  it('lets an authorized transfer signer send coins and tokens within their daily caps until it expires, and nothing else', async () => {
    const chain = chains[0]!;
    const holder = Wallet.createRandom();
    const signer = Wallet.createRandom();
    const recipient = Wallet.createRandom().address;
    const sender = (await factoryOf(chain).getFunction('getAddress')(holder.address, 0n)) as string;
    const account = accountAt(chain, sender);
    const usdt = new Contract(chain.usdt, loadArtifact('TestUSDT').abi as InterfaceAbi, chain.funder);
    // Its own bundler key (anvil account 4), so the funder can fund and mint without racing the bundler's nonces.
    const bundler = new EntryPointHarness(
      new Wallet(HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, "m/44'/60'/0'/0/4").privateKey, chain.provider),
      chain.entryPoint,
    );
    const sign = async (op: UserOperation, key: BaseWallet, mode: 'owner' | 'transfer') => {
      const digest = userOperationHash(op, chain.chainId, chain.entryPoint);
      const signature = key.signingKey.sign(digest).serialized;
      return { ...op, signature: mode === 'owner' ? singleSignature(signature) : transferSignature(signature) };
    };
    const byOwner = (call: string) => account.interface.encodeFunctionData('execute', [sender, 0n, call]);
    const capped = (token: string, to: string, amount: bigint) =>
      account.interface.encodeFunctionData('transferWithinCap', [token, to, amount]);
    // Deployment and the signer's grant (an expiry, 1 ETH and 20 USDT a day) in one owner-signed operation.
    const initCode = concat([
      chain.accountFactory,
      factoryOf(chain).interface.encodeFunctionData('createAccount', [holder.address, 0n]),
    ]);
    const grant = account.interface.encodeFunctionData('configureTransferSigner', [
      signer.address,
      inAnHour(),
      [ZeroAddress, chain.usdt],
      [parseEther('1'), 20_000_000n],
    ]);
    const deploy = await baseOperation(chain, sender, {
      initCode,
      callData: byOwner(grant),
      verificationGasLimit: 1_500_000n,
    });
    expect((await bundler.submit(await sign(deploy, holder, 'owner'), beneficiary)).success).toBe(true);
    expect(await account.getFunction('transferSigner')()).toBe(signer.address);
    const nonce = await chain.provider.getTransactionCount(chain.funder.address, 'latest');
    await (await chain.funder.sendTransaction({ to: sender, value: parseEther('5'), nonce })).wait();
    await (await usdt.getFunction('mint')(sender, 50_000_000n, { nonce: nonce + 1 })).wait();
    const send = async (callData: string, key: BaseWallet = signer) =>
      bundler.submit(await sign(await baseOperation(chain, sender, { callData }), key, 'transfer'), beneficiary);

    expect((await send(capped(ZeroAddress, recipient, parseEther('0.25')))).success).toBe(true);
    expect(await chain.provider.getBalance(recipient)).toBe(parseEther('0.25'));
    expect((await send(capped(chain.usdt, recipient, 12_500_000n))).success).toBe(true);
    expect(await usdt.getFunction('balanceOf')(recipient)).toBe(12_500_000n);

    // Past the day's cap the account itself refuses: the operation runs and reverts, nothing moves.
    expect((await send(capped(chain.usdt, recipient, 7_500_001n))).success).toBe(false);
    expect((await send(capped(ZeroAddress, recipient, parseEther('0.75') + 1n))).success).toBe(false);
    expect(await usdt.getFunction('balanceOf')(recipient)).toBe(12_500_000n);
    expect(await chain.provider.getBalance(recipient)).toBe(parseEther('0.25'));
    // Up to the cap exactly is fine; a token it has no cap for cannot be sent at all.
    expect((await send(capped(chain.usdt, recipient, 7_500_000n))).success).toBe(true);
    const otherToken = chain.paymaster; // any address that is not a capped token
    expect((await send(capped(otherToken, recipient, 1n))).success).toBe(false);

    // Anything but transferWithinCap is refused at validation: execute() of any kind, owner change, a transfer to itself.
    const refused = [
      account.interface.encodeFunctionData('execute', [recipient, 1n, '0x']),
      account.interface.encodeFunctionData('execute', [
        chain.usdt,
        0n,
        usdt.interface.encodeFunctionData('transfer', [recipient, 1n]),
      ]),
      changeOwnerCall(sender, signer.address),
      capped(ZeroAddress, sender, 1n),
    ];
    for (const callData of refused) await expect(send(callData)).rejects.toThrow(/AA24 signature error/);
    // Another key cannot use the transfer mode.
    await expect(send(capped(ZeroAddress, recipient, 1n), Wallet.createRandom())).rejects.toThrow(
      /AA24 signature error/,
    );

    // Once expired, the EntryPoint refuses the key; the owner renews it.
    const expire = account.interface.encodeFunctionData('setTransferSigner', [
      signer.address,
      Math.floor(Date.now() / 1000) - 60,
    ]);
    expect(
      (
        await bundler.submit(
          await sign(await baseOperation(chain, sender, { callData: byOwner(expire) }), holder, 'owner'),
          beneficiary,
        )
      ).success,
    ).toBe(true);
    await expect(send(capped(ZeroAddress, recipient, 1n))).rejects.toThrow(/AA22 expired or not due/);
    const renew = account.interface.encodeFunctionData('setTransferSigner', [signer.address, inAnHour()]);
    expect(
      (
        await bundler.submit(
          await sign(await baseOperation(chain, sender, { callData: byOwner(renew) }), holder, 'owner'),
          beneficiary,
        )
      ).success,
    ).toBe(true);
    expect((await send(capped(ZeroAddress, recipient, 1n))).success).toBe(true);
  });

  it("never lets the transfer signer spend the account's coin on gas: without a paymaster its operations are refused, whatever they offer to pay", async () => {
    const chain = chains[1]!;
    const holder = Wallet.createRandom();
    const leaked = Wallet.createRandom();
    const sender = (await factoryOf(chain).getFunction('getAddress')(holder.address, 0n)) as string;
    const account = accountAt(chain, sender);
    // The attacker bundles its own operations (anvil account 5) and names itself the beneficiary the EntryPoint pays.
    const attacker = new Wallet(
      HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, "m/44'/60'/0'/0/5").privateKey,
      chain.provider,
    );
    const attackerBundler = new EntryPointHarness(attacker, chain.entryPoint);
    const initCode = concat([
      chain.accountFactory,
      factoryOf(chain).interface.encodeFunctionData('createAccount', [holder.address, 0n]),
    ]);
    const grant = account.interface.encodeFunctionData('configureTransferSigner', [
      leaked.address,
      inAnHour(),
      [ZeroAddress],
      [parseEther('0.1')],
    ]);
    const deploy = await baseOperation(chain, sender, {
      initCode,
      callData: account.interface.encodeFunctionData('execute', [sender, 0n, grant]),
      verificationGasLimit: 1_500_000n,
    });
    deploy.signature = singleSignature(
      holder.signingKey.sign(userOperationHash(deploy, chain.chainId, chain.entryPoint)).serialized,
    );
    expect((await bundlerOf(chain).submit(deploy, beneficiary)).success).toBe(true);
    await (
      await chain.funder.sendTransaction({
        to: sender,
        value: parseEther('5'),
        nonce: await chain.provider.getTransactionCount(chain.funder.address, 'latest'),
      })
    ).wait();

    /** Straight from the node, as codeAt: ethers answers a repeated call from a short cache. */
    const balance = async (address: string) =>
      BigInt((await chain.provider.send('eth_getBalance', [address, 'latest'])) as string);
    const fees = await chain.provider.getFeeData();
    const unsponsored = async (fields: Partial<UserOperation>): Promise<UserOperation> => {
      const op: UserOperation = {
        sender,
        nonce: await attackerBundler.nonceOf(sender),
        initCode: '0x',
        callData: account.interface.encodeFunctionData('transferWithinCap', [ZeroAddress, attacker.address, 1n]),
        callGasLimit: 100_000n,
        verificationGasLimit: 200_000n,
        preVerificationGas: 60_000n,
        maxFeePerGas: fees.maxFeePerGas! * 2n,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas!,
        paymasterAndData: '0x',
        signature: '0x',
        ...fields,
      };
      return {
        ...op,
        signature: transferSignature(
          leaked.signingKey.sign(userOperationHash(op, chain.chainId, chain.entryPoint)).serialized,
        ),
      };
    };
    const accountBefore = await balance(sender);
    // An ordinary operation that the account would prefund, and one whose gas and fees would take 2 ETH to the bundler.
    const ordinary = await unsponsored({});
    const absurd = await unsponsored({
      preVerificationGas: 1_000_000n,
      maxFeePerGas: parseEther('0.000002'),
      maxPriorityFeePerGas: parseEther('0.000002'),
    });
    for (const op of [ordinary, absurd])
      await expect(attackerBundler.submit(op, attacker.address)).rejects.toThrow(/AA24 signature error/);
    // Sent anyway, without the bundler's own simulation, the EntryPoint reverts the whole bundle: it is mined, failed.
    const entryPoint = new Contract(
      chain.entryPoint,
      (await import('@account-abstraction/contracts/artifacts/EntryPoint.json')).abi as InterfaceAbi,
      attacker,
    );
    const forced = (await entryPoint.getFunction('handleOps')([packUserOperation(absurd)], attacker.address, {
      gasLimit: 3_000_000n,
    })) as { wait(): Promise<unknown> };
    await expect(forced.wait()).rejects.toThrow(/reverted/);
    expect(await balance(sender)).toBe(accountBefore);
    expect(await attackerBundler.depositOf(sender)).toBe(0n);

    // The same key, sponsored by the service's paymaster, still sends within its cap; the account pays no gas.
    const sponsored = await baseOperation(chain, sender, {
      callData: account.interface.encodeFunctionData('transferWithinCap', [ZeroAddress, beneficiary, 1000n]),
    });
    sponsored.signature = transferSignature(
      leaked.signingKey.sign(userOperationHash(sponsored, chain.chainId, chain.entryPoint)).serialized,
    );
    expect((await bundlerOf(chain).submit(sponsored, beneficiary)).success).toBe(true);
    expect(await balance(sender)).toBe(accountBefore - 1000n);
  });
});
