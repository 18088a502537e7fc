import {
  Contract,
  ContractFactory,
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
import { PaymasterSigner } from '../../integrations/evm/paymaster';
import { ANVIL_PAYMASTER_SIGNER_KEY } from '../../dev/chains';
import {
  singleSignature,
  transferSignature,
  userOperationHash,
  type UserOperation,
} from '../../integrations/evm/user-operation';
import { startTestChain, type TestChain } from '../helpers/chains';

const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';
/** ERC-1967's implementation slot: bytes32(uint256(keccak256('eip1967.proxy.implementation')) - 1). */
const IMPLEMENTATION_SLOT = '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc';
const DELAY = 3600;

/**
 * Issue 24, point 5, on a real chain: an account deployed by today's factory is upgraded by its owner to
 * WalletAccountRecoverable (balances, owner, transfer key and caps intact); the service's recovery key can schedule a
 * new owner and, only after the delay, make it the owner - and do nothing else; the owner cancels within the delay.
 */
describe('account recovery with a time lock on a real chain', () => {
  const factoryArtifact = loadArtifact('WalletAccountFactory');
  const recoverableArtifact = loadArtifact('WalletAccountRecoverable');
  let chain: TestChain;
  let bundler: EntryPointHarness;
  let implementation: string;
  const holder = Wallet.createRandom();
  const signer = Wallet.createRandom();
  const rescuer = Wallet.createRandom();
  const beneficiary = Wallet.createRandom().address;
  let recoveryKey: Wallet;
  let sender: string;
  let account: Contract;
  let usdt: Contract;

  const sponsor = new PaymasterSigner(ANVIL_PAYMASTER_SIGNER_KEY);
  const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;
  const operation = async (fields: Partial<UserOperation>): Promise<UserOperation> => {
    const fees = await chain.provider.getFeeData();
    const op: UserOperation = {
      sender,
      nonce: await bundler.nonceOf(sender),
      initCode: '0x',
      callData: '0x',
      callGasLimit: 300_000n,
      verificationGasLimit: 600_000n,
      preVerificationGas: 60_000n,
      maxFeePerGas: fees.maxFeePerGas! * 2n,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas!,
      paymasterAndData: '0x',
      signature: '0x',
      ...fields,
    };
    // Sponsored for an hour of the chain's time (these tests move it forward).
    const now = ((await chain.provider.send('eth_getBlockByNumber', ['latest', false])) as { timestamp: string })
      .timestamp;
    return { ...op, paymasterAndData: sponsor.sign(op, chain, Number(now) + 3600) };
  };
  const signedBy = (op: UserOperation, key: BaseWallet, mode: 'owner' | 'transfer' = 'owner') => {
    const signature = key.signingKey.sign(userOperationHash(op, chain.chainId, chain.entryPoint)).serialized;
    return { ...op, signature: mode === 'owner' ? singleSignature(signature) : transferSignature(signature) };
  };
  const byOwner = (call: string) => account.interface.encodeFunctionData('execute', [sender, 0n, call]);
  const state = async () => ({
    owner: await account.getFunction('owner')(),
    transferSigner: await account.getFunction('transferSigner')(),
    validUntil: await account.getFunction('transferSignerValidUntil')(),
    ethCap: (await account.getFunction('transferAllowances')(ZeroAddress))[0],
    usdtCap: (await account.getFunction('transferAllowances')(chain.usdt))[0],
    balance: await chain.provider.getBalance(sender),
    usdt: await usdt.getFunction('balanceOf')(sender),
  });
  const asKey = () => account.connect(recoveryKey) as Contract;
  /**
   * A transaction of the recovery key, its nonce and gas given: after evm_increaseTime, anvil's "pending" block (which
   * ethers asks for both) lags behind "latest", and ethers answers a repeated call from a 250 ms cache.
   */
  const keySends = async (name: string, ...args: unknown[]) =>
    (
      await asKey().getFunction(name)(...args, {
        gasLimit: 200_000,
        nonce: Number(await chain.provider.send('eth_getTransactionCount', [recoveryKey.address, 'latest'])),
      })
    ).wait();

  beforeAll(async () => {
    chain = await startTestChain(31337);
    bundler = new EntryPointHarness(
      new Wallet(HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, "m/44'/60'/0'/0/5").privateKey, chain.provider),
      chain.entryPoint,
    );
    recoveryKey = new Wallet(Wallet.createRandom().privateKey, chain.provider);
    let nonce = await chain.provider.getTransactionCount(chain.funder.address, 'latest');
    const deployed = await new ContractFactory(
      recoverableArtifact.abi as InterfaceAbi,
      recoverableArtifact.bytecode,
      chain.funder,
    ).deploy(chain.entryPoint, { nonce: nonce++ });
    implementation = await deployed.getAddress();
    await deployed.waitForDeployment();
    await (
      await chain.funder.sendTransaction({ to: recoveryKey.address, value: parseEther('1'), nonce: nonce++ })
    ).wait();
    // An account of today's factory (today's implementation), with a transfer key capped at 1 ETH and 20 USDT a day.
    const factory = new Contract(chain.accountFactory, factoryArtifact.abi as InterfaceAbi, chain.provider);
    sender = (await factory.getFunction('getAddress')(holder.address, 0n)) as string;
    account = new Contract(sender, recoverableArtifact.abi as InterfaceAbi, chain.provider);
    usdt = new Contract(chain.usdt, loadArtifact('TestUSDT').abi as InterfaceAbi, chain.funder);
    const initCode = concat([
      chain.accountFactory,
      factory.interface.encodeFunctionData('createAccount', [holder.address, 0n]),
    ]);
    const grant = account.interface.encodeFunctionData('configureTransferSigner', [
      signer.address,
      inAnHour(),
      [ZeroAddress, chain.usdt],
      [parseEther('1'), 20_000_000n],
    ]);
    const deploy = await operation({ initCode, callData: byOwner(grant), verificationGasLimit: 1_500_000n });
    expect((await bundler.submit(signedBy(deploy, holder), beneficiary)).success).toBe(true);
    await (await chain.funder.sendTransaction({ to: sender, value: parseEther('5'), nonce: nonce++ })).wait();
    await (await usdt.getFunction('mint')(sender, 50_000_000n, { nonce: nonce++ })).wait();
  });
  afterAll(async () => chain?.stop());

  it("an account of today's factory knows no recovery until its owner upgrades it; the upgrade keeps its state", async () => {
    await expect(asKey().getFunction('scheduleRecovery')(rescuer.address)).rejects.toThrow();
    const before = await state();
    const upgrade = account.interface.encodeFunctionData('upgradeToAndCall', [
      implementation,
      account.interface.encodeFunctionData('configureRecovery', [recoveryKey.address, DELAY]),
    ]);
    // Nobody but the owner upgrades: the recovery key cannot, nor can a transfer-key operation.
    await expect(asKey().getFunction('upgradeToAndCall')(implementation, '0x')).rejects.toThrow();
    await expect(
      bundler.submit(signedBy(await operation({ callData: byOwner(upgrade) }), signer, 'transfer'), beneficiary),
    ).rejects.toThrow(/AA24/);
    expect(
      (await bundler.submit(signedBy(await operation({ callData: byOwner(upgrade) }), holder), beneficiary)).success,
    ).toBe(true);
    expect(BigInt(await chain.provider.getStorage(sender, IMPLEMENTATION_SLOT))).toBe(BigInt(implementation));
    expect(await state()).toEqual(before);
    expect(await account.getFunction('recoveryKey')()).toBe(recoveryKey.address);
    expect(await account.getFunction('recoveryDelay')()).toBe(BigInt(DELAY));
    // The transfer key still sends within its cap after the upgrade.
    const recipient = Wallet.createRandom().address;
    const capped = account.interface.encodeFunctionData('transferWithinCap', [
      ZeroAddress,
      recipient,
      parseEther('0.1'),
    ]);
    expect(
      (await bundler.submit(signedBy(await operation({ callData: capped }), signer, 'transfer'), beneficiary)).success,
    ).toBe(true);
    expect(await chain.provider.getBalance(recipient)).toBe(parseEther('0.1'));
  });

  it('the recovery key can schedule a new owner and nothing else: no transfer, call, upgrade, cap or setting, no user operation', async () => {
    const before = await state();
    await keySends('scheduleRecovery', rescuer.address);
    expect(await account.getFunction('pendingOwner')()).toBe(rescuer.address);
    await expect(asKey().getFunction('scheduleRecovery')(Wallet.createRandom().address)).rejects.toThrow(
      /already pending/,
    );
    await expect(asKey().getFunction('executeRecovery')(rescuer.address)).rejects.toThrow(/too early/);
    const thief = Wallet.createRandom().address;
    const attempts: Array<[string, unknown[]]> = [
      ['execute', [thief, parseEther('1'), '0x']],
      ['executeBatch', [[{ target: thief, value: parseEther('1'), data: '0x' }]]],
      ['transferWithinCap', [ZeroAddress, thief, 1n]],
      ['changeOwner', [thief]],
      ['setTransferSigner', [thief, inAnHour()]],
      ['setTransferCap', [ZeroAddress, parseEther('100')]],
      ['configureRecovery', [recoveryKey.address, 1]],
      ['cancelRecovery', []],
      ['upgradeToAndCall', [implementation, '0x']],
      ['withdrawDepositTo', [thief, 1n]],
    ];
    for (const [name, args] of attempts) await expect(asKey().getFunction(name)(...args)).rejects.toThrow();
    // It signs no user operation, in either mode.
    const drain = byOwner(account.interface.encodeFunctionData('execute', [thief, parseEther('1'), '0x']));
    await expect(
      bundler.submit(signedBy(await operation({ callData: drain }), recoveryKey), beneficiary),
    ).rejects.toThrow(/AA24/);
    const capped = account.interface.encodeFunctionData('transferWithinCap', [ZeroAddress, thief, 1n]);
    await expect(
      bundler.submit(signedBy(await operation({ callData: capped }), recoveryKey, 'transfer'), beneficiary),
    ).rejects.toThrow(/AA24/);
    expect(await state()).toEqual(before);
    expect(await chain.provider.getBalance(thief)).toBe(0n);
  });

  it('the owner cancels within the delay: the recovery cannot execute, even after the delay', async () => {
    expect(
      (
        await bundler.submit(
          signedBy(
            await operation({ callData: byOwner(account.interface.encodeFunctionData('cancelRecovery')) }),
            holder,
          ),
          beneficiary,
        )
      ).success,
    ).toBe(true);
    expect(await account.getFunction('pendingOwner')()).toBe(ZeroAddress);
    await chain.provider.send('evm_increaseTime', [DELAY + 1]);
    await chain.provider.send('evm_mine', []);
    await expect(asKey().getFunction('executeRecovery')(rescuer.address)).rejects.toThrow(/not pending/);
    expect(await account.getFunction('owner')()).toBe(holder.address);
  });

  it('after the delay, the scheduled owner becomes the owner: the old key is out, the new key in, the funds and caps intact', async () => {
    const scheduled = await keySends('scheduleRecovery', rescuer.address);
    expect(scheduled?.status).toBe(1);
    const before = await state();
    await expect(
      asKey().getFunction('executeRecovery').staticCall(rescuer.address, { blockTag: 'latest' }),
    ).rejects.toThrow(/too early/);
    await chain.provider.send('evm_increaseTime', [DELAY + 1]);
    await chain.provider.send('evm_mine', []);
    // Only for the owner it scheduled.
    await expect(
      asKey().getFunction('executeRecovery').staticCall(Wallet.createRandom().address, { blockTag: 'latest' }),
    ).rejects.toThrow(/not pending/);
    await keySends('executeRecovery', rescuer.address);
    expect(await state()).toEqual({ ...before, owner: rescuer.address });
    const call = byOwner(account.interface.encodeFunctionData('setTransferCap', [ZeroAddress, parseEther('2')]));
    await expect(bundler.submit(signedBy(await operation({ callData: call }), holder), beneficiary)).rejects.toThrow(
      /AA24/,
    );
    expect((await bundler.submit(signedBy(await operation({ callData: call }), rescuer), beneficiary)).success).toBe(
      true,
    );
    expect((await account.getFunction('transferAllowances')(ZeroAddress))[0]).toBe(parseEther('2'));
  });
});
