import { randomUUID } from 'node:crypto';
import { Wallet, parseEther } from 'ethers';
import { testDatabases } from '../helpers/databases';
import { freePort } from '../helpers/global-setup';
import { startTestStack, type TestStack } from '../helpers/stack';
import { registerUser, type RegisteredUser } from '../helpers/http';
import { INCLUDED } from '../helpers/transfers';
import { bankAccountLog, callApi, connectBankAccount, openBankAccount } from '../helpers/bank';
import { encryptPin, pinSetRequest, transferPin, type TransferFields } from '../helpers/pin';
import { deployAccount } from '../helpers/wallet';
import { runServiceProcess, waitFor, type ServiceProcess } from '../helpers/processes';
import { SolanaWalletEntity, TransferKeyEntity } from '../../db/entities';
import { verifiedIdentityCheck } from '../helpers/identity-checks';

/**
 * The API process holds no key-encryption key and no credential issuer key, so it cannot create, open or use a
 * server-held key: transfer keys, Solana wallets, transfer signatures, credentials and the 1 KRW deposit all happen in
 * the worker. Driven through api/main.ts started
 * from the same environment a production api gets (no KEY_ENCRYPTION_KEY at all).
 */
describe('an API process without KEY_ENCRYPTION_KEY', () => {
  let stack: TestStack;
  let api: ServiceProcess;
  let apiUrl: string;
  let user: RegisteredUser;
  const PIN = '730164';
  const viaProcess = () => ({ apiUrl, sandboxUrl: stack.sandboxUrl });

  beforeAll(async () => {
    stack = await startTestStack(testDatabases().at(-1)!, {
      chains: true,
      solana: true,
      env: { TRANSFER_WAIT_SECONDS: '30' },
    });
    const port = await freePort();
    const env = stack.apiProcessEnv(port);
    expect(env.KEY_ENCRYPTION_KEY).toBeUndefined();
    expect(env.VC_ISSUER_KEY).toBeUndefined();
    expect(stack.workerProcessEnv().KEY_ENCRYPTION_KEY).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    api = runServiceProcess('api/main.ts', env);
    apiUrl = `http://127.0.0.1:${port}`;
    await waitFor(
      async () => {
        try {
          return (await fetch(`${apiUrl}/readyz`)).ok;
        } catch {
          return false;
        }
      },
      60_000,
      'the api process',
    );
    user = await registerUser(stack, undefined, { pin: null });
    const firstPin = await encryptPin(stack, PIN);
    const identityCheckId = await verifiedIdentityCheck(stack, user, pinSetRequest(firstPin));
    expect(
      (await callApi(viaProcess(), '/api/v1/pin', user, { json: { pin: firstPin, identityCheckId } })).status,
    ).toBe(201);
    user.pin = PIN;
  });
  afterAll(async () => {
    api?.child.kill('SIGTERM');
    await api?.exited;
    await stack?.stop();
  });

  const transfer = async (body: Record<string, string>, key = randomUUID()) =>
    callApi(viaProcess(), '/api/v1/transfer/crypto/execute', user, {
      json: { pin: await transferPin(stack, PIN, body as unknown as TransferFields, key), ...body },
      key,
    });

  it('deploys an account whose transfer key the worker made, and sends ETH signed by the worker', async () => {
    const accountAddress = await deployAccount(viaProcess(), user, Wallet.createRandom(), 'ETHEREUM');
    const key = await stack.orm.em.fork().findOneOrFail(TransferKeyEntity, { userId: user.userId });
    expect(key.keySealed).not.toContain(key.address.slice(2));
    const chain = stack.chains[0]!;
    await (await chain.funder.sendTransaction({ to: accountAddress, value: parseEther('1') })).wait();
    const recipient = Wallet.createRandom().address;
    const sent = await transfer({ to_address: recipient, network: 'ETHEREUM', token: 'ETH', amount: '0.2' });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ status: expect.stringMatching(INCLUDED), amount: '0.2 ETH', error: null });
    expect(await chain.provider.getBalance(recipient)).toBe(parseEther('0.2'));
  });

  it('opens a SOLANA wallet through the worker and sends SOL signed there', async () => {
    const opened = await callApi(viaProcess(), '/v1/wallet/networks/SOLANA/wallet', user, { method: 'POST' });
    expect(opened.status).toBe(201);
    const wallet = await stack.orm.em.fork().findOneOrFail(SolanaWalletEntity, { userId: user.userId });
    expect(opened.body.address).toBe(wallet.address);
    expect(opened.body.balances).toContainEqual(expect.objectContaining({ token: 'SOL', amount: '2 SOL' }));
    const to = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
    const before = stack.solana!.balance(to);
    const sent = await transfer({ to_address: to, network: 'SOLANA', token: 'SOL', amount: '0.5' });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({
      status: expect.stringMatching(INCLUDED),
      amount: '0.5 SOL',
      fee: '0.000005 SOL',
      error: null,
    });
    expect(stack.solana!.balance(to) - before).toBe(500_000_000n);
  });

  it('records basic KYC information with a credential the worker signs', async () => {
    const body = { full_name: user.person.name, eng_surname: 'HONG', eng_name: 'GILDONG', nationality: 'KR' };
    const first = await callApi(viaProcess(), '/api/v1/kyc/basic-info', user, { json: body });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ step: 'basic_info', completed: true, vcId: expect.stringMatching(/^vc_/) });
    expect((await callApi(viaProcess(), '/api/v1/kyc/basic-info', user, { json: body })).body.vcId).toBe(
      first.body.vcId,
    );
    expect((await callApi(viaProcess(), `/v1/did/vcs/${first.body.vcId}`, user)).status).toBe(200);
  });

  it('verifies a bank account by a 1 KRW deposit the worker makes', async () => {
    const account = await openBankAccount(stack, user.person, 50_000);
    const connected = await connectBankAccount(viaProcess(), user, account);
    expect(connected.account_no).toMatch(/\*/);
    expect((await bankAccountLog(stack, account)).transactions.filter((t) => t.amount === 1)).toHaveLength(1);
  });
});
