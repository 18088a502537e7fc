import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import nacl from 'tweetnacl';
import ed2curve from 'ed2curve';
import { ApplicationFailure } from '@temporalio/common';
import { CodeClient } from '../../integrations/travel-rule/code/client';
import {
  base64Of,
  codeKeyPair,
  openCodePayload,
  sealCodePayload,
  signCodeRequest,
  signedBytes,
} from '../../integrations/travel-rule/code/crypto';
import { ProviderUnavailable } from '../../integrations/provider-http';
import { PROVIDER_REJECTED } from '../../platform/failures';
import { SandboxCodeHub } from '../../sandbox/code-hub';
import {
  CodeIvms101Invalid,
  codeNameCandidates,
  codeNameKey,
  readCodeIvms101,
  sameCodeName,
} from '../../integrations/travel-rule/code/ivms101';
import { codeAllowList, codeResponseApp, serveCodeListener } from '../../api/http/code-listener';
import type { CodeInbound, CodeSender } from '../../api/compliance/code-inbound';
import { CODE_HUB } from '../../integrations/travel-rule/counterparts';
import { createLogger } from '../../platform/logger';

/**
 * CODE's signature and sealed payloads against an independent implementation of the same primitives (TweetNaCl, and
 * ed2curve for the Ed25519 to Curve25519 conversion), and the CODE client against the sandbox's emulation of CODE's
 * hub over real HTTP, with CODE's published IVMS101 examples (fixtures/code/SOURCES.md).
 */
const fixture = (name: string): any => JSON.parse(readFileSync(join(__dirname, 'fixtures/code', name), 'utf8'));
const OUR_ID = 'wallet-sandbox';

let server: Server;
let base: string;
let hub: SandboxCodeHub;
let ourSeed: string;
const sent: Array<{ method: string; url: string; headers: IncomingHttpHeaders; raw: string }> = [];

beforeAll(async () => {
  hub = new SandboxCodeHub();
  ourSeed = randomBytes(32).toString('base64');
  hub.register(OUR_ID, base64Of((await codeKeyPair(ourSeed)).publicKey));
  const koa = new Koa();
  koa.use(bodyParser({ enableTypes: ['json'] }));
  koa.use(async (ctx, next) => {
    if (!ctx.path.includes('/_'))
      sent.push({
        method: ctx.method,
        url: ctx.url,
        headers: ctx.headers,
        raw: (ctx.request as unknown as { rawBody?: string }).rawBody ?? '',
      });
    return next();
  });
  koa.use(hub.router().routes());
  server = koa.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());
beforeEach(() => {
  sent.length = 0;
});

const client = (seed = ourSeed) =>
  new CodeClient({ apiUrl: `${base}/code`, entityId: OUR_ID, signingKey: seed, transport: { timeoutMs: 5000 } });
const admin = (path: string, method: string, body?: object) =>
  fetch(`${base}/code${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body && JSON.stringify(body),
  }).then((r) => r.json() as Promise<any>);
const failure = async (asking: Promise<unknown>): Promise<Error> => {
  try {
    await asking;
  } catch (error) {
    return error as Error;
  }
  throw new Error('the call did not fail');
};
/** The published request example, as a transfer of ours would carry it to `account`. */
const published = (account: string) => {
  const ivms101 = fixture('asset-transfer-authorization-request-natural-2-natural-example.json');
  ivms101.Beneficiary.accountNumber = [account];
  return ivms101;
};
const transfer = (account: string, ivms101 = published(account)) => ({
  transferId: randomUUID(),
  currency: 'ETH',
  amount: '0.5',
  tradePrice: '2100000',
  tradeCurrency: 'KRW',
  isExceedingThreshold: true,
  ivms101,
});

describe("CODE's cryptography, against TweetNaCl", () => {
  it('signs the datetime, the body and the nonce as 4 big-endian bytes with Ed25519', async () => {
    const keys = await codeKeyPair(ourSeed);
    const [datetime, body, nonce] = ['2024-03-04T15:10:00Z', '{"transferId":"681f27dd"}', 989166249];
    const bytes = signedBytes(datetime, body, nonce);
    expect([...bytes.subarray(-4)]).toEqual([nonce >>> 24, (nonce >>> 16) & 255, (nonce >>> 8) & 255, nonce & 255]);
    expect(bytes.subarray(0, -4).toString('utf8')).toBe(datetime + body);
    const signature = Buffer.from(await signCodeRequest(keys, datetime, body, nonce), 'base64');
    expect(nacl.sign.detached.verify(bytes, signature, keys.publicKey)).toBe(true);
    // The same key from the same seed in TweetNaCl signs the same (Ed25519 is deterministic).
    const theirs = nacl.sign.keyPair.fromSeed(Buffer.from(ourSeed, 'base64'));
    expect(Buffer.from(nacl.sign.detached(bytes, theirs.secretKey))).toEqual(signature);
  });

  it('seals the payload as NaCl box between the converted keys, its nonce first, both ways', async () => {
    const ours = await codeKeyPair(ourSeed);
    const theirs = nacl.sign.keyPair.fromSeed(randomBytes(32));
    const payload = { ivms101: published('rHcFoo6a9qT5NHiVn1THQRhsEGcxtYCV4d:tag or memo') };
    const sealed = Buffer.from(await sealCodePayload(ours, base64Of(theirs.publicKey), payload), 'base64');
    const opened = nacl.box.open(
      sealed.subarray(24),
      sealed.subarray(0, 24),
      ed2curve.convertPublicKey(ours.publicKey)!,
      ed2curve.convertSecretKey(theirs.secretKey),
    );
    expect(JSON.parse(Buffer.from(opened!).toString('utf8'))).toEqual(payload);

    const nonce = randomBytes(24);
    const answer = { ivms101: fixture('asset-transfer-authorization-response-natual-2-natual-example.json') };
    const boxed = nacl.box(
      Buffer.from(JSON.stringify(answer)),
      nonce,
      ed2curve.convertPublicKey(ours.publicKey)!,
      ed2curve.convertSecretKey(theirs.secretKey),
    );
    expect(
      await openCodePayload(ours, base64Of(theirs.publicKey), Buffer.concat([nonce, boxed]).toString('base64')),
    ).toEqual(answer);
    await expect(openCodePayload(ours, base64Of(nacl.sign.keyPair().publicKey), base64Of(boxed))).rejects.toThrow();
  });
});

describe('the CODE client against the hub', () => {
  it('refuses a signing key that is not a 32-byte seed when it is made, before any request', () => {
    for (const bad of [Buffer.alloc(16, 1).toString('base64'), Buffer.alloc(64, 1).toString('base64'), ''])
      expect(() => client(bad)).toThrow(/a CODE signing key is a 32-byte seed/);
    expect(sent).toEqual([]);
  });

  it("authorizes a transfer with CODE's published IVMS101 example: signed headers, the payload sealed, the answer opened", async () => {
    const account = `0x${randomBytes(20).toString('hex')}`;
    await admin(`/_accounts/code-gwanghwa/${account}`, 'PUT', { name: 'Smith Alice' });
    const decision = await client().authorizeTransfer('code-gwanghwa', transfer(account));
    expect(decision.verified).toBe(true);
    const answer = (decision as { ivms101: Record<string, any> }).ivms101;
    expect(Object.keys(answer).sort()).toEqual(
      Object.keys(fixture('asset-transfer-authorization-response-natual-2-natual-example.json')).sort(),
    );
    expect(answer.BeneficiaryVASP.beneficiaryVASP.legalPerson.name.nameIdentifier[0].legalPersonName).toBe(
      'Gwanghwa Exchange Inc.',
    );
    const request = sent.find((r) => r.url === '/code/v1/code/transfer/code-gwanghwa')!;
    expect(request.headers['x-request-origin']).toBe(`code:${OUR_ID}`);
    expect(request.headers['x-code-req-datetime']).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(request.headers['x-code-req-nonce']).toMatch(/^\d+$/);
    expect(request.headers['x-code-req-pubkey']).toBe(await client().publicKey());
    expect(request.headers['x-code-req-remote-pubkey']).toBe(await client().publicKeyOf('code-gwanghwa'));
    const body = JSON.parse(request.raw);
    expect(Object.keys(body)).toEqual([
      'transferId',
      'currency',
      'amount',
      'tradePrice',
      'tradeCurrency',
      'isExceedingThreshold',
      'payload',
    ]);
    expect(typeof body.payload).toBe('string');
    expect(hub.transfers.at(-1)).toMatchObject({
      transferId: body.transferId,
      result: 'verified',
      originatingVaspEntityId: OUR_ID,
    });
  });

  it('is denied for an unknown address or another name; reports the txid once, and ends a transfer', async () => {
    const account = `0x${randomBytes(20).toString('hex')}`;
    await admin(`/_accounts/code-mapo/${account}`, 'PUT', { name: 'Smith Alice' });
    expect(await client().authorizeTransfer('code-mapo', transfer(`0x${'ab'.repeat(20)}`))).toMatchObject({
      verified: false,
      reasonType: 'NOT_FOUND_ADDRESS',
    });
    const otherName = published(account);
    otherName.Beneficiary.beneficiaryPersons[0].naturalPerson.name.nameIdentifier[0].primaryIdentifier = 'Jones';
    expect((await client().authorizeTransfer('code-mapo', transfer(account, otherName))).verified).toBe(false);

    const sending = transfer(account);
    expect((await client().authorizeTransfer('code-mapo', sending)).verified).toBe(true);
    expect(
      await client().reportTxid('code-mapo', { transferId: sending.transferId, txid: 'ab'.repeat(32) }),
    ).toMatchObject({
      result: 'normal',
    });
    expect(
      await client().reportTxid('code-mapo', { transferId: sending.transferId, txid: 'cd'.repeat(32) }),
    ).toMatchObject({
      result: 'error',
      reasonType: 'TXID_ALREADY_EXISTS',
    });
    const dropped = transfer(account);
    await client().authorizeTransfer('code-mapo', dropped);
    expect(await client().finishTransfer('code-mapo', { transferId: dropped.transferId })).toMatchObject({
      result: 'normal',
    });
    expect(await client().finishTransfer('code-mapo', { transferId: dropped.transferId })).toMatchObject({
      result: 'normal',
    });
    expect(hub.transfers.find((t) => t.transferId === dropped.transferId)!.status).toBe('canceled');
  });

  it('searches an address (the IVMS101 Beneficiary sealed)', async () => {
    const account = `0x${randomBytes(20).toString('hex')}`;
    await admin(`/_accounts/code-gwanghwa/${account}`, 'PUT', { name: 'Smith Alice' });
    expect(await client().verifyAddress('code-gwanghwa', { currency: 'ETH', account })).toMatchObject({ valid: true });
    // An EVM address is one account in any case (a checksummed one, here upper case).
    expect(
      await client().verifyAddress('code-gwanghwa', {
        currency: 'ETH',
        account: `0x${account.slice(2).toUpperCase()}`,
      }),
    ).toMatchObject({ valid: true });
    expect(await client().verifyAddress('code-gwanghwa', { currency: 'ETH', account: '0xdead' })).toMatchObject({
      valid: false,
      reasonType: 'NOT_FOUND_ADDRESS',
    });
  });

  it('asks for the beneficiary’s key again when the hub says it is not current, and seals again', async () => {
    const account = `0x${randomBytes(20).toString('hex')}`;
    await admin(`/_accounts/code-gwanghwa/${account}`, 'PUT', { name: 'Smith Alice' });
    const adapter = client();
    await adapter.publicKeyOf('code-gwanghwa');
    await admin('/_rotate/code-gwanghwa', 'POST');
    sent.length = 0;
    expect((await adapter.authorizeTransfer('code-gwanghwa', transfer(account))).verified).toBe(true);
    expect(sent.map((r) => r.url)).toEqual([
      '/code/v1/code/transfer/code-gwanghwa',
      '/code/v1/code/Vasp/code-gwanghwa/pubkey',
      '/code/v1/code/transfer/code-gwanghwa',
    ]);
  });

  it('is refused by the hub for a key it does not know, a replayed nonce, or an unknown VASP', async () => {
    const stranger = client(randomBytes(32).toString('base64'));
    const unsigned = await failure(stranger.publicKeyOf('code-gwanghwa'));
    expect([unsigned instanceof ProviderUnavailable, unsigned.message]).toEqual([
      true,
      expect.stringContaining('INVALID_HEADER_SIGNATURE'),
    ]);
    await client().publicKeyOf('code-mapo', true);
    const first = sent.at(-1)!;
    const replay = await fetch(`${base}${first.url}`, {
      headers: Object.fromEntries(
        Object.entries(first.headers).filter(([k]) => k.startsWith('x-')) as Array<[string, string]>,
      ),
    });
    expect([replay.status, ((await replay.json()) as any).errorType]).toEqual([422, 'DUPLICATED_HEADER_NONCE']);
    const unknown = await failure(client().publicKeyOf('code-nowhere'));
    expect(unknown instanceof ApplicationFailure && unknown.type === PROVIDER_REJECTED).toBe(true);
  });
});

describe("CODE's Response API as a beneficiary reads it", () => {
  it("reads CODE's published authorization example: names as CODE's Dev 06 compares them, accounts as written", () => {
    const reading = readCodeIvms101(fixture('asset-transfer-authorization-request-natural-2-natural-example.json'));
    expect(reading.beneficiaryNames).toEqual(expect.arrayContaining(['SmithAlice', 'AliceSmith', '앨리스 스미스']));
    expect(reading.originatorNames).toEqual(expect.arrayContaining(['BarnesRobert', 'RobertBarnes', '로버트 반스']));
    expect(reading.beneficiaryAccounts).toEqual(['rHcFoo6a9qT5NHiVn1THQRhsEGcxtYCV4d:tag or memo']);
    expect(reading.beneficiaryNames.some((name) => sameCodeName(name, 'Alice Smith'))).toBe(true);
    expect(reading.beneficiaryNames.some((name) => sameCodeName(name, '앨리스스미스'))).toBe(true);
    expect(reading.beneficiaryNames.some((name) => sameCodeName(name, 'Alice Smyth'))).toBe(false);
    // The address search example: an account and no person.
    const search = readCodeIvms101(fixture('virtual-asset-address-search-request-example.json'));
    expect([search.beneficiaryNames, search.beneficiaryAccounts]).toEqual([
      [],
      ['rHcFoo6a9qT5NHiVn1THQRhsEGcxtYCV4d:tag or memo'],
    ]);
    expect(() => readCodeIvms101({ Beneficiary: { beneficiaryPersons: [] } })).toThrow(CodeIvms101Invalid);
    expect(() => readCodeIvms101({ beneficiary: {} })).toThrow(CodeIvms101Invalid);
    // The example tries two names (Alice Smith in either order, and her Hangul name): two of an address's daily tries.
    expect(reading.beneficiaryNameTries).toBe(2);
  });

  it('reads one beneficiary named at most twice in each kind of identifier: a message is not a list of names to try', () => {
    const example = () => fixture('asset-transfer-authorization-request-natural-2-natural-example.json');
    const refused = (message: unknown) => {
      try {
        readCodeIvms101(message);
      } catch (error) {
        return error instanceof CodeIvms101Invalid && !error.missing ? error.message : `not refused so: ${error}`;
      }
      return 'read';
    };
    // A second person (CODE's legal-person example names the company and then its representative: we hold natural
    // persons' accounts only, so such a beneficiary is never ours and is refused as every other second person).
    const second = example();
    second.Beneficiary.beneficiaryPersons.push({
      naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: 'Doe', secondaryIdentifier: 'Jane' }] } },
    });
    expect(refused(second)).toMatch(/one person, not several/);
    // A third identifier of a kind, natural or legal; a person both natural and legal.
    const third = example();
    third.Beneficiary.beneficiaryPersons[0].naturalPerson.name.nameIdentifier.push(
      { primaryIdentifier: 'A' },
      { primaryIdentifier: 'B' },
    );
    expect(refused(third)).toMatch(/at most twice/);
    const legalList = example();
    legalList.Beneficiary.beneficiaryPersons = [
      {
        legalPerson: {
          name: {
            nameIdentifier: ['Korbit Inc.', 'Alice Smith', 'Coinone Inc.'].map((legalPersonName) => ({
              legalPersonName,
            })),
          },
        },
      },
    ];
    expect(refused(legalList)).toMatch(/at most twice .*legalPerson/);
    const both = example();
    both.Beneficiary.beneficiaryPersons[0].legalPerson = { name: { nameIdentifier: [{ legalPersonName: 'X' }] } };
    expect(refused(both)).toMatch(/not both/);
    // What a message tries: one per identifier, whichever ordering or spelling of one name it repeats.
    const orderings = example();
    orderings.Beneficiary.beneficiaryPersons[0].naturalPerson.name = {
      nameIdentifier: [
        { primaryIdentifier: 'Smith', secondaryIdentifier: 'Alice' },
        { primaryIdentifier: 'alice', secondaryIdentifier: 'SMITH' },
      ],
      localNameIdentifier: [{ primaryIdentifier: '앨리스 스미스' }, { primaryIdentifier: '이영희' }],
    };
    expect(readCodeIvms101(orderings).beneficiaryNameTries).toBe(3);
  });

  it("normalises names as Dev 06's example does: lower case, no special characters, digits or spaces, either order", () => {
    const candidates = codeNameCandidates([
      {
        naturalPerson: {
          name: {
            nameIdentifier: [
              { primaryIdentifier: "O'Connor", secondaryIdentifier: 'Jean-Luc', nameIdentifierType: 'LEGL' },
            ],
          },
        },
      },
    ]);
    expect(candidates.map(codeNameKey)).toEqual(['oconnorjeanluc', 'jeanlucoconnor']);
    expect(candidates.some((name) => sameCodeName(name, 'Jean Luc OConnor 2'))).toBe(true);
    // Nothing matches an empty (or unverified) name, and a legal person goes by its legal name.
    expect(sameCodeName('', '')).toBe(false);
    expect(
      codeNameCandidates([
        {
          legalPerson: {
            name: { nameIdentifier: [{ legalPersonName: 'Korbit Inc.', legalPersonNameIdentifierType: 'LEGL' }] },
          },
        },
      ]),
    ).toEqual(['Korbit Inc.']);
  });

  it("answers only CODE's addresses: another peer gets 403 before anything is read; the allow-list setting is checked", async () => {
    const app = codeResponseApp({
      inbound: {} as CodeInbound,
      vasps: [{ entityId: 'code-mapo', name: 'Mapo' }],
      publicKey: base64Of(new Uint8Array(32)),
      allowed: codeAllowList('10.0.0.0/8, 2001:db8::1'),
      logger: createLogger({ level: 'silent', name: 'test' }),
    });
    const listener = await serveCodeListener(app, { host: '127.0.0.1', port: 0 });
    try {
      const { port } = listener.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/v1/vasp/health`);
      expect([response.status, ((await response.json()) as { errorType: string }).errorType]).toEqual([
        403,
        'UNACCEPTABLE_REQUEST',
      ]);
    } finally {
      listener.close();
    }
    // With the allow-list on the server too, another peer is dropped as it connects: not even a status is read.
    const dropping = await serveCodeListener(app, {
      host: '127.0.0.1',
      port: 0,
      allowed: codeAllowList('10.0.0.0/8'),
    });
    try {
      const { port } = dropping.address() as AddressInfo;
      await expect(fetch(`http://127.0.0.1:${port}/v1/vasp/health`)).rejects.toThrow();
    } finally {
      dropping.close();
    }
    expect(() => codeAllowList('')).toThrow(/required/);
    expect(() => codeAllowList('codevasp.com')).toThrow(/not an IP address/);
    expect(codeAllowList('127.0.0.1').check('127.0.0.1', 'ipv4')).toBe(true);
  });

  it("answers CODE's own entity (codevasp) what concerns no person, listed or not: never an authorization, a report, a cancelation or a transfer's data", async () => {
    // Each Response API call with a valid body; the inbound side answers which call reached it, and from whom.
    const reached = (call: string) => (sender: CodeSender) =>
      Promise.resolve({ reached: call, hub: sender.hub === true });
    const inbound = Object.fromEntries(
      ['verifyAddress', 'authorize', 'reportTxid', 'transferStatus', 'finish', 'searchTxid', 'transferData'].map(
        (call) => [call, reached(call)],
      ),
    ) as unknown as CodeInbound;
    const transferId = randomUUID();
    const calls: Array<[string, string, object | undefined]> = [
      ['GET', '/v1/vasp/health', undefined],
      ['POST', '/v1/beneficiary/VerifyAddress', { currency: 'ETH', payload: 'AAAA' }],
      [
        'POST',
        '/v1/beneficiary/transfer',
        {
          transferId,
          currency: 'ETH',
          amount: '0.5',
          tradePrice: '2100000',
          tradeCurrency: 'KRW',
          isExceedingThreshold: 'true',
          payload: 'AAAA',
        },
      ],
      ['POST', '/v1/beneficiary/transfer/txid', { transferId, txid: 'ab'.repeat(32) }],
      ['POST', '/v1/vasp/transfer/status', { transferId }],
      ['PUT', '/v1/vasp/transfer/status', { transferId, status: 'canceled' }],
      ['POST', '/v1/verification/tx', { txid: 'ab'.repeat(32), beneficiaryAddress: '0xdead' }],
      [
        'PUT',
        '/v1/verification/tx',
        { transferId, txid: 'ab'.repeat(32), beneficiaryAddress: '0xdead', payload: 'AAAA' },
      ],
    ];
    const refused = { errorType: 'UNACCEPTABLE_REQUEST', errorMsg: expect.stringMatching(/not a counterpart/) };
    const answers = async (vasps: Array<{ entityId: string; name: string }>, origin: string) => {
      const app = codeResponseApp({
        inbound,
        vasps,
        publicKey: base64Of(new Uint8Array(32)),
        allowed: codeAllowList('127.0.0.1'),
        logger: createLogger({ level: 'silent', name: 'test' }),
      });
      const listener = await serveCodeListener(app, { host: '127.0.0.1', port: 0 });
      try {
        const { port } = listener.address() as AddressInfo;
        const key = base64Of(randomBytes(32));
        return await Promise.all(
          calls.map(async ([method, path, body]) => {
            const response = await fetch(`http://127.0.0.1:${port}${path}`, {
              method,
              headers: { 'content-type': 'application/json', 'X-Request-Origin': origin, 'X-Code-Req-PubKey': key },
              body: body && JSON.stringify(body),
            });
            return [`${method} ${path}`, response.status, (await response.json()) as Record<string, unknown>] as const;
          }),
        );
      } finally {
        listener.close();
      }
    };
    const members = [{ entityId: 'code-mapo', name: 'Mapo Digital Assets Co., Ltd.' }];
    const forHub = [
      ['GET /v1/vasp/health', 200, { status: 'up' }],
      ['POST /v1/beneficiary/VerifyAddress', 200, { reached: 'verifyAddress', hub: true }],
      ['POST /v1/beneficiary/transfer', 503, refused],
      ['POST /v1/beneficiary/transfer/txid', 503, refused],
      ['POST /v1/vasp/transfer/status', 200, { reached: 'transferStatus', hub: true }],
      ['PUT /v1/vasp/transfer/status', 503, refused],
      ['POST /v1/verification/tx', 200, { reached: 'searchTxid', hub: true }],
      ['PUT /v1/verification/tx', 503, refused],
    ];
    expect(await answers(members, 'code:codevasp')).toEqual(forHub);
    // Listing CODE's entity among the members makes it no counterpart.
    expect(await answers([...members, CODE_HUB], 'code:codevasp')).toEqual(forHub);
    // A member is answered every call, as before.
    expect((await answers(members, 'code:code-mapo')).map(([call, status, body]) => [call, status, body.hub])).toEqual(
      calls.map(([method, path]) => [`${method} ${path}`, 200, path === '/v1/vasp/health' ? undefined : false]),
    );
  });
});
