import { randomUUID } from 'node:crypto';
import { Contract, Wallet, parseEther, parseUnits, type InterfaceAbi } from 'ethers';
import { loadArtifact } from '../../contracts/build';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { registerUser, type RegisteredUser } from '../helpers/http';
import { callApi } from '../helpers/bank';
import { encryptPin, transferPin, type TransferFields } from '../helpers/pin';
import { deployAccount } from '../helpers/wallet';

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
    stack = await startTestStack(testDatabases()[0]!, { chains: true, env: { TRANSFER_SIGNER_DAILY_CAPS: '{"ETH":"0.3"}' } });
    user = await registerUser(stack);
    await callApi(stack, '/api/v1/pin', user, { json: { pin: await encryptPin(stack, PIN) } });
    account = await deployAccount(stack, user, Wallet.createRandom(), 'ETHEREUM');
    const chain = stack.chains[0]!;
    const usdt = new Contract(chain.usdt, loadArtifact('TestUSDT').abi as InterfaceAbi, chain.funder);
    const nonce = await chain.provider.getTransactionCount(chain.funder.address, 'latest');
    await (await chain.funder.sendTransaction({ to: account, value: parseEther('1'), nonce })).wait();
    await (await usdt.getFunction('mint')(account, parseUnits('100', 6), { nonce: nonce + 1 })).wait();
  });
  afterAll(async () => { await stack?.stop(); });

  const transfer = async (body: TransferFields) => {
    const key = randomUUID();
    return callApi(stack, '/api/v1/transfer/crypto/execute', user, { json: { pin: await transferPin(stack, PIN, body, key), ...body }, key });
  };

  it('sends within the day\'s cap; past it, or for a token without a cap, the account refuses and nothing moves', async () => {
    const provider = stack.chains[0]!.provider;
    const recipient = Wallet.createRandom().address;
    const within = await transfer({ to_address: recipient, network: 'ETHEREUM', token: 'ETH', amount: '0.2' });
    expect(within.body).toMatchObject({ status: 'confirmed', amount: '0.2 ETH' });

    const past = await transfer({ to_address: recipient, network: 'ETHEREUM', token: 'ETH', amount: '0.2' });
    expect(past.status).toBe(200);
    expect(past.body).toMatchObject({ status: 'failed', error: expect.stringContaining('transfer: over the daily cap') });
    const uncapped = await transfer({ to_address: recipient, network: 'ETHEREUM', token: 'USDT', amount: '1' });
    expect(uncapped.body).toMatchObject({ status: 'failed', error: expect.stringContaining('transfer: over the daily cap') });

    expect(await provider.getBalance(recipient)).toBe(parseEther('0.2'));
    expect(await provider.getBalance(account)).toBe(parseEther('0.8'));
    const history = await callApi(stack, '/api/v1/transactions', user);
    expect(history.body.transactions.map((t: { amount: string }) => t.amount)).toEqual(['-0.2 ETH']);
  });
});
