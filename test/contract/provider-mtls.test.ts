import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import { openBankingRouter } from '../../sandbox/open-banking';
import { bankRailFrom } from '../../integrations/providers';
import { ProviderUnavailable } from '../../integrations/provider-http';
import type { BankTranIdBook } from '../../integrations/bank/kftc-tran-ids';
import type { Config } from '../../platform/config';
import { TestCa } from '../helpers/certificates';

/** A book that hands out ids and remembers nothing: enough for inquiries, which are never asked about again. */
const forgetfulBook: BankTranIdBook = {
  find: async () => undefined,
  assign: async (reference, transfer, newId) => ({
    reference,
    bankTranId: newId(),
    tranDate: '20260101',
    ...transfer,
    sentAt: null,
    earlier: [],
  }),
  claim: async () => true,
  reassign: async () => undefined,
  dated: async () => undefined,
};

/**
 * Provider HTTP with mutual TLS, set up by settings (BANK_TLS_CERT_FILE, BANK_TLS_KEY_FILE, BANK_TLS_CA_FILE): the
 * open banking emulator behind an HTTPS server of a private CA that demands a client certificate of that CA.
 */
describe('mutual TLS with a provider, from its settings', () => {
  const ca = new TestCa('Provider CA');
  const other = new TestCa('Another CA');
  const serverCert = ca.issue('127.0.0.1', { server: ['127.0.0.1', 'localhost'] });
  const ours = ca.issue('wallet-service', { client: true });
  const strangers = other.issue('wallet-service', { client: true });
  const app = new Koa();
  app.use(bodyParser({ enableTypes: ['json', 'form'] }));
  app.use(
    openBankingRouter({
      clientId: 'wallet-app',
      clientSecret: 'wallet-app-secret',
      institutionCode: 'M202300001',
      contractAccount: { bankCode: '004', accountNo: '100000000001', holder: '(주)월렛' },
      depositPassPhrase: 'abc123',
    }).routes(),
  );
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createServer(
      { key: serverCert.key, cert: serverCert.cert, ca: ca.ca.cert, requestCert: true, rejectUnauthorized: true },
      app.callback(),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/kftc`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    ca.remove();
    other.remove();
  });

  const rail = (tls: Partial<Record<'cert' | 'key' | 'ca', string>>) =>
    bankRailFrom(
      {
        PROVIDER_TIMEOUT_MS: 5000,
        BANK_PROVIDER: 'kftc',
        BANK_API_URL: url,
        BANK_CLIENT_ID: 'wallet-app',
        BANK_CLIENT_SECRET: 'wallet-app-secret',
        BANK_INSTITUTION_CODE: 'M202300001',
        ...(tls.cert ? { BANK_TLS_CERT_FILE: ca.write(`c-${tls.cert.length}.pem`, tls.cert) } : {}),
        ...(tls.key ? { BANK_TLS_KEY_FILE: ca.write(`k-${tls.key.length}.pem`, tls.key) } : {}),
        ...(tls.ca ? { BANK_TLS_CA_FILE: ca.write(`ca-${tls.ca.length}.pem`, tls.ca) } : {}),
      } as Config,
      { tranIds: forgetfulBook },
    );
  const inquiry = (tls: Partial<Record<'cert' | 'key' | 'ca', string>>) =>
    rail(tls).accountHolder({ reference: 'rn', bankCode: '004', accountNo: '1234567890', birthDate: '1990-01-01' });

  it('talks to the provider with our client certificate, verifying its server against the configured CA', async () => {
    // An answer of the API (no such account) means the whole TLS handshake and both certificates were accepted.
    expect(await inquiry({ cert: ours.cert, key: ours.key, ca: ca.ca.cert })).toEqual({
      found: false,
      reason: 'no_such_account',
      code: '412',
    });
  });

  it('is refused without a client certificate, or with one of another CA', async () => {
    await expect(inquiry({ ca: ca.ca.cert })).rejects.toBeInstanceOf(ProviderUnavailable);
    await expect(inquiry({ cert: strangers.cert, key: strangers.key, ca: ca.ca.cert })).rejects.toBeInstanceOf(
      ProviderUnavailable,
    );
  });

  it('refuses a server whose certificate is not of the configured CA (nothing is sent to it)', async () => {
    await expect(inquiry({ cert: ours.cert, key: ours.key, ca: other.ca.cert })).rejects.toThrow(/did not answer/);
    await expect(inquiry({ cert: ours.cert, key: ours.key })).rejects.toBeInstanceOf(ProviderUnavailable);
  });
});
