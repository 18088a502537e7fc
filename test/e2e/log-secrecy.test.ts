import { createHash } from 'node:crypto';
import { testDatabases } from '../helpers/databases';
import { makeIdCardPng } from '../../sandbox/id-card-image';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, registerUser } from '../helpers/http';
import { INCLUDED } from '../helpers/transfers';
import { callApi, connectBankAccount, openBankAccount } from '../helpers/bank';
import { encryptPin, pinSetRequest, transferPin } from '../helpers/pin';
import { waitFor } from '../helpers/processes';
import { SolanaWalletEntity } from '../../db/entities';
import { EnvelopeEncryption } from '../../platform/envelope';
import { verifiedIdentityCheck } from '../helpers/identity-checks';

describe('logs', () => {
  const lines: string[] = [];
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack(testDatabases()[0]!, { logSink: lines, solana: true });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('record every request with its id, status and route, and no credential or personal data', async () => {
    const user = await registerUser(stack);
    const profile = await call(`${stack.apiUrl}/v1/account/profile`, {
      headers: { authorization: `Bearer ${user.accessToken}`, 'x-request-id': 'trace-me-12345' },
    });
    expect(profile.headers.get('x-request-id')).toBe('trace-me-12345');
    const log = lines.join('');
    expect(log).toContain('"requestId":"trace-me-12345"');
    expect(log).toContain('"route":"/v1/account/register/:regId/ekyc"');
    // CI and DI as the identity provider computes them, the backup as sent, a stretch of the ID-card image.
    const ci = createHash('sha256')
      .update(`${user.person.name}|${user.person.birthDate}|${user.person.phone}`)
      .digest('base64');
    const di = createHash('sha256').update(`di|${ci}`).digest('base64');
    const image = makeIdCardPng(user.person).toString('base64').slice(40, 104);
    const secrets = [
      user.passToken,
      user.accessToken,
      user.refreshToken,
      user.person.name,
      user.person.phone,
      user.regId,
      user.deviceId,
      ci,
      di,
      user.backup.encryptedMnemonic,
      image,
    ];
    for (const secret of secrets) expect(log).not.toContain(secret);
    expect(lines.length).toBeGreaterThanOrEqual(6);
  });

  it('keep PINs, bank account numbers, keys and tokens out of logs and answers through a charge and a transfer', async () => {
    const user = await registerUser(stack, undefined, { pin: null });
    const answers: string[] = [];
    const api = async (path: string, init: Parameters<typeof callApi>[3] = {}) => {
      const answer = await callApi(stack, path, user, init);
      answers.push(JSON.stringify(answer.body));
      return answer;
    };
    const pin = '918273';
    const encryptedPin = await encryptPin(stack, pin);
    const identityCheckId = await verifiedIdentityCheck(stack, user, pinSetRequest(encryptedPin));
    expect((await api('/api/v1/pin', { json: { pin: encryptedPin, identityCheckId } })).status).toBe(201);
    const account = await openBankAccount(stack, user.person, 1_000_000);
    await connectBankAccount(stack, user, account);
    const charge = await api('/api/v1/charge/execute', {
      json: { source: account.bankCode, amount: '10000', currency: 'KRW' },
    });
    await waitFor(
      async () => (await callApi(stack, `/api/v1/charge/${charge.body.charge_id}`, user)).body.status === 'completed',
      30_000,
      'charge',
    );
    await api('/v1/wallet/networks/SOLANA/wallet', { method: 'POST' });
    const transfer = {
      to_address: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM',
      network: 'SOLANA',
      token: 'SOL',
      amount: '0.01',
    };
    const approvingPin = await transferPin(stack, pin, transfer);
    const sent = await api('/api/v1/transfer/crypto/execute', { json: { ...transfer, pin: approvingPin } });
    expect(sent.body.status).toMatch(INCLUDED);
    await api('/api/v1/transfer/crypto/execute', {
      json: { ...transfer, pin: await transferPin(stack, '111111', transfer) },
    });

    const wallet = await stack.orm.em.fork().findOneOrFail(SolanaWalletEntity, { userId: user.userId });
    const seed = new EnvelopeEncryption(stack.workerProcessEnv().KEY_ENCRYPTION_KEY!).open(
      wallet.keySealed,
      `solana-wallet:${user.userId}`,
    );
    const secrets = [
      encryptedPin,
      approvingPin,
      `"${pin}"`,
      account.accountNo,
      seed,
      wallet.keySealed,
      user.accessToken,
      user.refreshToken,
      user.passToken,
      user.person.name,
      user.person.phone,
    ];
    const log = lines.join('');
    expect(log).toContain('"route":"/api/v1/transfer/crypto/execute"');
    for (const secret of secrets) {
      expect(log).not.toContain(secret);
      for (const answer of answers) expect(answer).not.toContain(secret);
    }
  });
});
