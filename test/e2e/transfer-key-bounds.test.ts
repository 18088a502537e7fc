import { randomUUID } from 'node:crypto';
import { Contract, Wallet, parseEther, parseUnits, type InterfaceAbi } from 'ethers';
import { loadArtifact } from '../../contracts/build';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { registerUser, type RegisteredUser } from '../helpers/http';
import { INCLUDED } from '../helpers/transfers';
import { callApi } from '../helpers/bank';
import { transferPin, type TransferFields } from '../helpers/pin';
import { bearer, deployAccount, signSlot } from '../helpers/wallet';
import { call } from '../helpers/http';
import { waitFor } from '../helpers/processes';
import { RetiredTransferKeyEntity, TransferEntity, TransferKeyEntity } from '../../db/entities';

/**
 * The service's transfer key is bounded by the account itself: even with the server-side limits wide open, a transfer
 * past the key's daily cap on chain, or of a token it has no cap for, is refused by WalletAccount and moves nothing.
 */
describe('the transfer key bounded on chain, through the service', () => {
  let stack: TestStack;
  let user: RegisteredUser;
  let account: string;
  const PIN = '482915';
  beforeAll(async () => {
    stack = await startTestStack(testDatabases()[0]!, {
      chains: true,
      env: { TRANSFER_SIGNER_DAILY_CAPS: '{"ETH":"0.3"}' },
    });
    user = await registerUser(stack, undefined, { pin: PIN });
    account = await deployAccount(stack, user, Wallet.createRandom(), 'ETHEREUM');
    const chain = stack.chains[0]!;
    const usdt = new Contract(chain.usdt, loadArtifact('TestUSDT').abi as InterfaceAbi, chain.funder);
    const nonce = await chain.provider.getTransactionCount(chain.funder.address, 'latest');
    await (await chain.funder.sendTransaction({ to: account, value: parseEther('1'), nonce })).wait();
    await (await usdt.getFunction('mint')(account, parseUnits('100', 6), { nonce: nonce + 1 })).wait();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const transfer = async (body: TransferFields, as = user) => {
    const key = randomUUID();
    return callApi(stack, '/api/v1/transfer/crypto/execute', as, {
      json: { pin: await transferPin(stack, PIN, body, key), ...body },
      key,
    });
  };

  it("sends within the day's cap; past it, or for a token without a cap, the account refuses and nothing moves", async () => {
    const provider = stack.chains[0]!.provider;
    const recipient = Wallet.createRandom().address;
    const within = await transfer({ to_address: recipient, network: 'ETHEREUM', token: 'ETH', amount: '0.2' });
    expect(within.body).toMatchObject({ status: expect.stringMatching(INCLUDED), amount: '0.2 ETH' });

    // The bundler's gas estimate simulates the operation: the account's refusal shows before anything is signed or paid.
    const refusedByAccount = { status: 422, type: '/problems/transfer-would-fail' };
    const past = await transfer({ to_address: recipient, network: 'ETHEREUM', token: 'ETH', amount: '0.2' });
    expect(past.body).toMatchObject({ ...refusedByAccount, detail: expect.stringContaining('over the daily cap') });
    const uncapped = await transfer({ to_address: recipient, network: 'ETHEREUM', token: 'USDT', amount: '1' });
    expect(uncapped.body).toMatchObject({ ...refusedByAccount, detail: expect.stringContaining('over the daily cap') });

    expect(await provider.getBalance(recipient)).toBe(parseEther('0.2'));
    expect(await provider.getBalance(account)).toBe(parseEther('0.8'));
    const history = await callApi(stack, '/api/v1/transactions', user);
    expect(history.body.transactions.map((t: { amount: string }) => t.amount)).toEqual(['-0.2 ETH']);
  });

  it("lets the owner read the key's bounds on chain, re-cap, rotate, revoke and renew it with signed operations", async () => {
    const owner = Wallet.createRandom();
    const holder = await registerUser(stack, undefined, { pin: PIN });
    const account2 = await deployAccount(stack, holder, owner, 'ETHEREUM');
    const chain = stack.chains[0]!;
    await (await chain.funder.sendTransaction({ to: account2, value: parseEther('1') })).wait();
    const view = async () =>
      (await call(`${stack.apiUrl}/v1/wallet/networks/ETHEREUM/transfer-key`, { headers: bearer(holder) })).body;
    const prepare = (body: object) =>
      call(`${stack.apiUrl}/v1/wallet/networks/ETHEREUM/transfer-key/prepare`, { headers: bearer(holder), json: body });
    const change = async (body: object) => {
      const prepared = await prepare(body);
      expect(prepared.status).toBe(200);
      const accepted = await call(`${stack.apiUrl}/v1/wallet/networks/ETHEREUM/transfer-key`, {
        headers: { ...bearer(holder), 'idempotency-key': randomUUID() },
        json: { signing: { items: [signSlot(prepared.body.items[0], owner)] } },
      });
      expect(accepted.status).toBe(202);
      const status = async () =>
        (
          await call(`${stack.apiUrl}/v1/wallet/transfer-key-operations/${accepted.body.opId}`, {
            headers: bearer(holder),
          })
        ).body;
      await waitFor(
        async () => (await status()).status === 'completed',
        60_000,
        `transfer key ${JSON.stringify(body)}`,
      );
      return { prepared: prepared.body, status: await status() };
    };
    const eth = (amount: string) => ({
      to_address: Wallet.createRandom().address,
      network: 'ETHEREUM',
      token: 'ETH',
      amount,
    });
    const firstKey = (await stack.orm.em.fork().findOneOrFail(TransferKeyEntity, { userId: holder.userId })).address;

    expect(await view()).toMatchObject({
      accountAddress: account2,
      signer: firstKey,
      signerStatus: 'current',
      expired: false,
      caps: [
        { symbol: 'ETH', dailyCap: '0.3 ETH', spentToday: '0 ETH', remainingToday: '0.3 ETH' },
        { symbol: 'USDT', dailyCap: '0 USDT', spentToday: '0 USDT' },
        // The tokens the local exchange trades: no cap, so the transfer key cannot send them.
        { symbol: 'USDC', dailyCap: '0 USDC', spentToday: '0 USDC' },
        { symbol: 'WBTC', dailyCap: '0 WBTC', spentToday: '0 WBTC' },
      ],
    });
    expect((await transfer(eth('0.1'), holder)).body.status).toMatch(INCLUDED);
    expect((await view()).caps[0]).toMatchObject({ spentToday: '0.1 ETH', remainingToday: '0.2 ETH' });

    // A lower cap, set by the owner: the next 0.1 ETH would pass 0.15 today and the account refuses it.
    await change({ action: 'set-caps', caps: { ETH: '0.15', USDT: '5' } });
    expect((await view()).caps).toEqual([
      { symbol: 'ETH', dailyCap: '0.15 ETH', spentToday: '0.1 ETH', remainingToday: '0.05 ETH' },
      { symbol: 'USDT', dailyCap: '5 USDT', spentToday: '0 USDT', remainingToday: '5 USDT' },
      { symbol: 'USDC', dailyCap: '0 USDC', spentToday: '0 USDC', remainingToday: '0 USDC' },
      { symbol: 'WBTC', dailyCap: '0 WBTC', spentToday: '0 WBTC', remainingToday: '0 WBTC' },
    ]);
    expect((await transfer(eth('0.1'), holder)).body).toMatchObject({
      status: 422,
      type: '/problems/transfer-would-fail',
      detail: expect.stringContaining('over the daily cap'),
    });

    // Rotation: a new service key; the old one is retired and the account names the new one.
    const rotated = await change({ action: 'rotate', validForSeconds: 86_400 });
    const secondKey = rotated.prepared.items[0].parameter.domain.transferSigner as string;
    expect(secondKey).not.toBe(firstKey);
    expect(rotated.status).toMatchObject({ action: 'rotate', signer: secondKey });
    expect(await view()).toMatchObject({ signer: secondKey, signerStatus: 'current' });
    expect(await stack.orm.em.fork().findOne(RetiredTransferKeyEntity, { address: firstKey })).toMatchObject({
      userId: holder.userId,
    });
    expect((await transfer(eth('0.01'), holder)).body.status).toMatch(INCLUDED); // signed by the new key

    // Revoked: the service cannot send at all; renewed: it can again.
    await change({ action: 'revoke' });
    expect(await view()).toMatchObject({ signer: null, signerStatus: 'none', expired: true });
    const refused = await transfer(eth('0.01'), holder);
    expect([refused.status, refused.body.type]).toEqual([409, '/problems/transfers-not-enabled']);

    // Expired: the account names the service's key past its expiry (set by the owner directly, as an owner may). The
    // transfer is refused before anything is recorded or reserved, where it was accepted and then failed at the hand-over.
    await (await chain.funder.sendTransaction({ to: owner.address, value: parseEther('0.05') })).wait();
    const { timestamp } = (await chain.provider.getBlock('latest'))!;
    const walletAccount = new Contract(
      account2,
      loadArtifact('WalletAccount').abi as InterfaceAbi,
      owner.connect(chain.provider),
    );
    await (await walletAccount.getFunction('setTransferSigner')(secondKey, timestamp - 60)).wait();
    expect(await view()).toMatchObject({ signer: secondKey, signerStatus: 'current', expired: true });
    const recorded = () => stack.orm.em.fork().count(TransferEntity, { userId: holder.userId });
    const before = await recorded();
    const expired = await transfer(eth('0.01'), holder);
    expect([expired.status, expired.body.type]).toEqual([409, '/problems/transfers-not-enabled']);
    expect(expired.body.detail).toContain('expired at');
    expect(await recorded()).toBe(before);
    // An expiry of 0 is none (ERC-4337's validUntil): the key signs, and the owner's view says it does not expire.
    // The owner's second transaction (its first was the expiry above; ethers' shared answer would repeat that nonce).
    await (await walletAccount.getFunction('setTransferSigner')(secondKey, 0, { nonce: 1 })).wait();
    expect(await view()).toMatchObject({ signer: secondKey, validUntil: null, expired: false });
    expect((await transfer(eth('0.01'), holder)).body.status).toMatch(INCLUDED);

    await change({ action: 'renew', validForSeconds: 7_200 });
    const renewed = await view();
    expect(renewed).toMatchObject({ signer: secondKey, signerStatus: 'current', expired: false });
    expect(Math.abs(new Date(renewed.validUntil).getTime() - (Date.now() + 7_200_000))).toBeLessThan(120_000);
    expect((await transfer(eth('0.01'), holder)).body.status).toMatch(INCLUDED);

    // Bad changes are refused before anything is prepared.
    expect((await prepare({ action: 'set-caps', caps: { BTC: '1' } })).body.type).toBe('/problems/unknown-token');
    expect((await prepare({ action: 'revoke', validForSeconds: 7_200 })).body.type).toBe(
      '/problems/invalid-transfer-key-change',
    );
    expect((await prepare({ action: 'renew', validForSeconds: 10 * 365 * 86_400 })).body.type).toBe(
      '/problems/invalid-transfer-key-change',
    );
    expect((await prepare({ action: 'set-caps' })).body.type).toBe('/problems/invalid-transfer-key-change');
    expect((await prepare({ action: 'rename' })).status).toBe(400);
    expect(
      (await call(`${stack.apiUrl}/v1/wallet/networks/SOLANA/transfer-key`, { headers: bearer(holder) })).status,
    ).toBe(404);
  });
});
