import { randomUUID } from 'node:crypto';
import { Contract, Interface, Wallet, dataSlice, getBytes, parseEther, verifyMessage, type InterfaceAbi } from 'ethers';
import { GasSponsor } from '../../activities/gas-sponsorship';
import { ANVIL_PAYMASTER_SIGNER_KEY } from '../../dev/chains';
import { NetworkRegistry } from '../../platform/networks';
import { PaymasterSigner } from '../../integrations/evm/paymaster';
import { PriceFeedClient } from '../../integrations/prices/feed';
import { UpbitQuotation } from '../../integrations/prices/upbit';
import { ChainProviders } from '../../integrations/evm/smart-account';
import { packUserOperation, userOperationHash, type UserOperation } from '../../integrations/evm/user-operation';
import { loadArtifact } from '../../contracts/build';
import { GasSponsorshipEntity, UserEntity, UserPinEntity } from '../../db/entities';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type StackChain, type TestStack } from '../helpers/stack';
import { call, registerUser, type RegisteredUser } from '../helpers/http';
import { INCLUDED } from '../helpers/transfers';
import { callApi } from '../helpers/bank';
import { transferPin, type TransferFields } from '../helpers/pin';
import { bearer, deployAccount, ownerApproval } from '../helpers/wallet';

const ENTRY_POINT_ABI = ['function balanceOf(address) view returns (uint256)'];

describe.each(testDatabases())('gas sponsored by the paymaster within a daily budget ($name)', (database) => {
  let stack: TestStack;
  let user: RegisteredUser;
  let account: string;
  const owner = Wallet.createRandom();
  const PIN = '482915';
  beforeAll(async () => {
    stack = await startTestStack(database, { chains: true, env: { TRANSFER_WAIT_SECONDS: '30' } });
    user = await registerUser(stack, undefined, { pin: PIN });
    account = await deployAccount(stack, user, owner, 'ETHEREUM');
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const chain = (): StackChain => stack.chains[0]!;
  const entryPoint = () => new Contract(chain().entryPoint, ENTRY_POINT_ABI, chain().provider);
  /** Asked with `send`, past ethers' cache of the same call (250 ms), which a transfer can be quicker than. */
  const paymasterDeposit = async () =>
    BigInt(
      await chain().provider.send('eth_call', [
        {
          to: chain().entryPoint,
          data: new Interface(ENTRY_POINT_ABI).encodeFunctionData('balanceOf', [chain().paymaster]),
        },
        'latest',
      ]),
    );
  const transfer = async (body: TransferFields) => {
    const key = randomUUID();
    return callApi(stack, '/api/v1/transfer/crypto/execute', user, {
      json: { pin: await transferPin(stack, PIN, body, key), ...body },
      key,
    });
  };

  it('pays a transfer from the paymaster, never from the account, and reports who paid', async () => {
    const provider = chain().provider;
    const nonce = await provider.getTransactionCount(chain().funder.address, 'latest');
    await (await chain().funder.sendTransaction({ to: account, value: parseEther('1'), nonce })).wait();
    const [accountBefore, depositBefore] = await Promise.all([provider.getBalance(account), paymasterDeposit()]);

    const sent = await transfer({
      to_address: Wallet.createRandom().address,
      network: 'ETHEREUM',
      token: 'ETH',
      amount: '0.1',
    });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({
      status: expect.stringMatching(INCLUDED),
      fee: expect.stringMatching(/^0\.\d+ ETH$/),
      fee_paid_by: 'service',
    });
    // The account lost exactly the amount; the paymaster's deposit paid the gas; no deposit was ever made for the account.
    // (Asked with `send`: ethers answers the same getBalance within 250 ms from its cache, and the transfer can be
    // quicker than that.)
    expect(BigInt(await provider.send('eth_getBalance', [account, 'latest']))).toBe(accountBefore - parseEther('0.1'));
    expect(await paymasterDeposit()).toBeLessThan(depositBefore);
    expect(await entryPoint().getFunction('balanceOf')(account)).toBe(0n);
  });

  it('leaves nothing of the service to drain: the owner calling withdrawDepositTo gains nothing', async () => {
    // The exploit: the owner key calls its account's withdrawDepositTo directly, hoping for a deposit the service made.
    const provider = chain().provider;
    const attacker = owner.connect(provider);
    const nonce = await provider.getTransactionCount(chain().funder.address, 'latest');
    await (await chain().funder.sendTransaction({ to: attacker.address, value: parseEther('1'), nonce })).wait();
    const wallet = new Contract(account, loadArtifact('WalletAccount').abi as InterfaceAbi, attacker);
    expect(await wallet.getFunction('getDeposit')()).toBe(0n);
    const [depositBefore, attackerBefore] = await Promise.all([
      paymasterDeposit(),
      provider.getBalance(attacker.address),
    ]);
    // Sent without estimation, so it is mined: the EntryPoint reverts it, as the account has no deposit to withdraw.
    const attempt = await wallet.getFunction('withdrawDepositTo')(attacker.address, 1n, { gasLimit: 100_000n });
    await expect(attempt.wait()).rejects.toMatchObject({ code: 'CALL_EXCEPTION', receipt: { status: 0 } });
    // Nothing moved from the paymaster, and the attacker is poorer by at most the gas of the failed attempt.
    expect(await paymasterDeposit()).toBe(depositBefore);
    expect(await provider.getBalance(attacker.address)).toBeLessThanOrEqual(attackerBefore);
  });

  it("counts what the chain charged against the day's budget and shows it", async () => {
    const budget = await call(`${stack.apiUrl}/v1/wallet/gas-budget`, { headers: bearer(user) });
    expect(budget.status).toBe(200);
    expect(budget.body).toEqual({
      dailyBudgetKrw: '200000',
      usedTodayKrw: expect.stringMatching(/^[1-9]\d*$/),
      remainingTodayKrw: expect.stringMatching(/^\d+$/),
      resetsAt: expect.stringMatching(/T15:00:00\.000Z$/),
      paidBy: 'service',
    });
    expect(BigInt(budget.body.usedTodayKrw) + BigInt(budget.body.remainingTodayKrw)).toBe(200_000n);
    // The deployment and the transfer landed: each settled at what its UserOperationEvent says it cost.
    const rows = await stack.orm.em
      .fork()
      .find(GasSponsorshipEntity, { userId: user.userId }, { orderBy: { createdAt: 'asc' } });
    expect(rows.map((r) => r.status)).toEqual(['settled', 'settled']);
    for (const row of rows) expect(BigInt(row.actualCostWei!)).toBeLessThan(BigInt(row.maxCostWei));
    // Another user has their own budget.
    const other = await registerUser(stack);
    expect((await call(`${stack.apiUrl}/v1/wallet/gas-budget`, { headers: bearer(other) })).body.usedTodayKrw).toBe(
      '0',
    );
  });

  const gasSponsor = () =>
    new GasSponsor({
      orm: stack.orm,
      networks: NetworkRegistry.fromJson(stack.config.NETWORKS),
      providers: new ChainProviders(),
      paymaster: new PaymasterSigner(ANVIL_PAYMASTER_SIGNER_KEY),
      prices: new PriceFeedClient({
        source: new UpbitQuotation({
          apiUrl: `${stack.sandboxUrl}/upbit`,
          transport: { timeoutMs: 5_000 },
          keepSeconds: 0,
        }),
      }),
      gasBudgetDailyKrw: 200_000,
    });
  const operationOf = async (sender: string): Promise<UserOperation> => {
    const fees = await chain().provider.getFeeData();
    return {
      sender,
      nonce: 5n,
      initCode: '0x',
      callData: '0x',
      callGasLimit: 100_000n,
      verificationGasLimit: 100_000n,
      preVerificationGas: 50_000n,
      maxFeePerGas: fees.maxFeePerGas!,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas!,
      paymasterAndData: '0x',
      signature: '0x',
    };
  };

  it('sponsors an operation rebuilt after a crash anew, replacing its unused reservation, and the same one again as before', async () => {
    const sponsor = gasSponsor();
    const built = await operationOf(account);
    const id = `transfer:${randomUUID()}`;
    const inAnHour = new Date(Date.now() + 3_600_000);
    const [first] = await sponsor.sponsor(
      user.userId,
      [{ sponsorshipId: id, networkId: 'ETHEREUM', operation: built }],
      inAnHour,
    );
    expect(
      await sponsor.sponsor(user.userId, [{ sponsorshipId: id, networkId: 'ETHEREUM', operation: built }], inAnHour),
    ).toEqual([first]);
    const rebuilt = { ...built, maxFeePerGas: built.maxFeePerGas + 1n };
    const [second] = await sponsor.sponsor(
      user.userId,
      [{ sponsorshipId: id, networkId: 'ETHEREUM', operation: rebuilt }],
      inAnHour,
    );
    expect(second).not.toBe(first);
    // One reservation, for the operation as rebuilt; the paymaster's own hash of it is what the new signature signs.
    const rows = await stack.orm.em.fork().find(GasSponsorshipEntity, { sponsorshipId: id });
    expect(rows.map((r) => [r.status, r.userOpHash, r.paymasterAndData])).toEqual([
      [
        'reserved',
        userOperationHash({ ...rebuilt, paymasterAndData: second! }, chain().chainId, chain().entryPoint),
        second,
      ],
    ]);
    const paymaster = new Contract(
      chain().paymaster,
      loadArtifact('WalletPaymaster').abi as InterfaceAbi,
      chain().provider,
    );
    const validUntil = Math.floor(inAnHour.getTime() / 1000);
    const digest = (await paymaster.getFunction('getHash')(
      packUserOperation({ ...rebuilt, paymasterAndData: second! }),
      validUntil,
      0,
    )) as string;
    expect(verifyMessage(getBytes(digest), dataSlice(second!, 64))).toBe(
      new Wallet(ANVIL_PAYMASTER_SIGNER_KEY).address,
    );
    await stack.orm.em.fork().nativeDelete(GasSponsorshipEntity, { sponsorshipId: id });
  });

  it("sponsors a transfer's operation only for a user still active (the closure's fence): a suspended one's is refused, nothing reserved or signed", async () => {
    const other = await registerUser(stack);
    const notActive = () => new Error('the account is no longer active');
    const item = async () => ({
      sponsorshipId: `transfer:${randomUUID()}`,
      networkId: 'ETHEREUM',
      operation: await operationOf(account),
    });
    const inAnHour = new Date(Date.now() + 3_600_000);
    const active = await item();
    expect(await gasSponsor().sponsor(other.userId, [active], inAnHour, { notActive })).toEqual([expect.any(String)]);
    await stack.orm.em.fork().nativeUpdate(UserEntity, { id: other.userId }, { status: 'suspended' });
    // The same operation again (an attempt after one that was sponsored and died before signing): refused all the same.
    await expect(gasSponsor().sponsor(other.userId, [active], inAnHour, { notActive })).rejects.toThrow(
      'the account is no longer active',
    );
    const suspended = await item();
    await expect(gasSponsor().sponsor(other.userId, [suspended], inAnHour, { notActive })).rejects.toThrow(
      'the account is no longer active',
    );
    expect(await stack.orm.em.fork().count(GasSponsorshipEntity, { sponsorshipId: suspended.sponsorshipId })).toBe(0);
    await stack.orm.em.fork().nativeDelete(GasSponsorshipEntity, { userId: other.userId });
  });

  it("refuses a transfer (before its PIN is checked) and a DID key once the day's budget is spent", async () => {
    // An operation sponsored today that has not landed yet counts at its most: here, more than the whole budget.
    const em = stack.orm.em.fork();
    em.create(GasSponsorshipEntity, {
      sponsorshipId: `test:${randomUUID()}`,
      userId: user.userId,
      networkId: 'ETHEREUM',
      userOpHash: `0x${'ab'.repeat(32)}`,
      paymasterAndData: '0x',
      maxCostWei: parseEther('1').toString(),
      priceKrwCenti: 420_000_000n,
      status: 'reserved',
      fromBlock: await chain().provider.getBlockNumber(),
      validUntil: new Date(Date.now() + 3_600_000),
    });
    await em.flush();
    const body = { to_address: Wallet.createRandom().address, network: 'ETHEREUM', token: 'ETH', amount: '0.01' };
    const refused = await callApi(stack, '/api/v1/transfer/crypto/execute', user, {
      json: { ...body, pin: await transferPin(stack, '000000', body) },
    });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({
      type: '/problems/gas-budget-exceeded',
      budgetKrw: '200000',
      resetsAt: expect.any(String),
    });
    const did = await call(`${stack.apiUrl}/v1/did/keys/assertion/prepare`, {
      headers: bearer(user),
      json: {
        keyType: 'EcdsaSecp256k1VerificationKey2019',
        publicKey: Wallet.createRandom().signingKey.compressedPublicKey,
      },
    });
    expect(did.status).toBe(422);
    expect(did.body).toMatchObject({ type: '/problems/gas-budget-exceeded', budgetKrw: '200000' });
    expect((await call(`${stack.apiUrl}/v1/wallet/gas-budget`, { headers: bearer(user) })).body.remainingTodayKrw).toBe(
      '0',
    );
    // The wrong PIN was never tried: no attempt was counted against it.
    expect((await stack.orm.em.fork().findOneOrFail(UserPinEntity, { userId: user.userId })).failedAttempts).toBe(0);
  });
});

describe('a user over the gas budget', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack(testDatabases()[0]!, { chains: true, env: { GAS_BUDGET_DAILY_KRW: '100' } });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('is refused with the budget and when it resets, and nothing is signed', async () => {
    const user = await registerUser(stack);
    const ownerAddress = Wallet.createRandom().address;
    const prepared = await call(`${stack.apiUrl}/v1/wallet/networks/ETHEREUM/deploy/prepare`, {
      headers: bearer(user),
      json: { ownerAddress, ...(await ownerApproval(stack, user, ownerAddress)) },
    });
    expect(prepared.status).toBe(422);
    expect(prepared.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(prepared.body).toMatchObject({
      type: '/problems/gas-budget-exceeded',
      status: 422,
      budgetKrw: '100',
      usedKrw: '0',
      neededKrw: expect.stringMatching(/^\d+$/),
      resetsAt: expect.stringMatching(/T15:00:00\.000Z$/),
      detail: expect.stringContaining('100 KRW a day'),
    });
    expect(BigInt(prepared.body.neededKrw)).toBeGreaterThan(100n);
    expect(await stack.orm.em.fork().count(GasSponsorshipEntity, { userId: user.userId })).toBe(0);
    expect((await call(`${stack.apiUrl}/v1/wallet/gas-budget`, { headers: bearer(user) })).body).toMatchObject({
      usedTodayKrw: '0',
      remainingTodayKrw: '100',
    });
  });
});
