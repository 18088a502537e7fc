import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Agent, fetch } from 'undici';
import {
  decodeTravelAddress,
  encodeTravelAddress,
  TravelAddressInvalid,
} from '../../integrations/travel-rule/travel-address';
import { Ivms101Invalid, ivms101Message, readIvms101 } from '../../integrations/travel-rule/ivms101';
import {
  TrpClient,
  parseResolution,
  sameAccount,
  type TravelRuleCounterpart,
  type TrpAsset,
} from '../../integrations/travel-rule/trp';
import { assetLabel, assetLabelsOf, trpAssetOf, USDT_ETHEREUM_DTI } from '../../integrations/travel-rule/assets';
import { ProviderUnavailable } from '../../integrations/provider-http';
import { FaultInjector } from '../../sandbox/faults';
import { counterpartsFromJson } from '../../integrations/travel-rule/counterparts';
import { SandboxVaspNetwork, travelRuleIdentities } from '../../sandbox/travel-rule-network';
import { serveTravelRuleListener } from '../../api/http/trp-listener';

const fixture = (name: string) => JSON.parse(readFileSync(join(__dirname, 'fixtures/trp', name), 'utf8'));

/**
 * TRP v3 as TRISA's implementation reads it (test/contract/fixtures/trp/SOURCES.md): Travel Addresses by its test
 * vectors, IVMS101 in the 2020 form it reads and writes (and the 2023 form the standard allows), and our TRP client
 * against the sandbox's exchanges, which answer as TRISA's handler does, over mutual TLS with pinned certificates.
 */
describe('TRP v3 and its Travel Addresses', () => {
  // trisa v1.1.1 pkg/openvasp/traddr/traddr_test.go
  const VECTORS: Array<[string, string]> = [
    ['https://beneficiary.com/x/12345?t=i', 'ta2W2HPKfHxgSgrzY178knqXHg1H3jfeQrwQ9JrKBs9wv'],
    ['https://trisa.beneficiary.com:4443/x/12345?t=i', 'ta2wijJqYhcj5zriQyV5SVWybf71AyHEXgRCa7WWJ8XQk9g1NodLEHbKoHdg'],
    ['https://envoy.local:8100/x/12345?t=i', 'ta7pwsXgswc9soxfnDgsBbWpDVsEwXy4G4hhPEN8WkrmaB'],
    [
      'https://api.testing.21analytics.xyz/transfers/01H11RHY53MBMEQB1VJ4KJF39Z?t=i',
      'ta2SRCMhxtdtKVfoV2MTziaN7F9WD7WKyGvynQa7w3as7ziTr583ZRU1DeKarHjFrLSxuQAZLciZMqry4Yk797qKErWYnCmj8sLaH',
    ],
  ];

  it.each(VECTORS)('encodes and decodes %s as TRISA does', (url, address) => {
    expect(encodeTravelAddress(url)).toBe(address);
    expect(decodeTravelAddress(address)).toBe(url);
  });

  it('adds t=i to a URL without it, and refuses a mistyped address, another alphabet or a URL without t=i', () => {
    expect(encodeTravelAddress('https://beneficiary.com/x/12345')).toBe(VECTORS[0]![1]);
    const [, good] = VECTORS[0]!;
    const typo = `${good.slice(0, 10)}${good[10] === 'a' ? 'b' : 'a'}${good.slice(11)}`;
    expect(() => decodeTravelAddress(typo)).toThrow(/checksum/);
    expect(() => decodeTravelAddress('ta0OIl')).toThrow(TravelAddressInvalid);
    expect(() => decodeTravelAddress('tb2W2HPKfHxgSgrzY178knqXHg1H3jfeQrwQ9JrKBs9wv')).toThrow(TravelAddressInvalid);
    expect(() => encodeTravelAddress('http://beneficiary.com/x')).toThrow(/https/);
  });

  it("reads TRISA's own inquiry (IVMS101 2020: persons plural, accounts beside them, nameIdentifierType)", () => {
    const inquiry = fixture('trisa-inquiry.json');
    expect(typeof inquiry.amount).toBe('number');
    expect(inquiry.asset).toEqual({ slip0044: 'BTC' });
    expect(readIvms101(inquiry.IVMS101)).toEqual({
      form: '2020',
      originator: { names: ['Post Johnny'], accounts: [] },
      beneficiary: { names: ['Tilcott Mildred'], accounts: ['mhtL3YVFdpTVffmLgUp4h4bcP3Su2zr5qx'], nameTries: 1 },
    });
  });

  it('writes the 2020 form TRISA reads, and the 2023 form (singular persons, accounts per person, renamed keys)', () => {
    const parties = {
      originator: {
        name: { local: '김민준', latin: { surname: 'KIM', given: 'MINJUN' } },
        customerId: 'usr_1',
        account: '0x1111111111111111111111111111111111111111',
      },
      beneficiary: { name: '홍길동', account: '0x2222222222222222222222222222222222222222' },
      originatingVasp: { name: 'Wallet Korea', id: 'wallet-kr' },
      beneficiaryVasp: { name: 'Hanbit', id: 'vasp-hanbit' },
    };
    const m2020 = ivms101Message(parties, '2020') as Record<string, Record<string, unknown>>;
    expect(Object.keys(m2020.originator!)).toEqual(['originatorPersons', 'accountNumber']);
    expect(m2020.beneficiary!.accountNumber).toEqual([parties.beneficiary.account]);
    expect(JSON.stringify(m2020)).not.toMatch(
      /naturalPersonNameIdentifierType|payloadMetadata|customerIdentification":"wallet/,
    );
    expect(m2020.originatingVASP).toEqual({
      originatingVASP: {
        legalPerson: {
          name: { nameIdentifier: [{ legalPersonName: 'Wallet Korea', legalPersonNameIdentifierType: 'LEGL' }] },
          customerNumber: 'wallet-kr',
          countryOfRegistration: 'KR',
        },
      },
    });
    const m2023 = ivms101Message(parties, '2023') as Record<string, Record<string, unknown>>;
    expect(m2023.payloadMetadata).toEqual({ payloadVersion: '101.2023' });
    expect(m2023.beneficiary).toEqual({
      beneficiaryPerson: [
        {
          naturalPerson: {
            name: { nameIdentifier: [{ primaryIdentifier: '홍길동', naturalPersonNameIdentifierType: 'LEGL' }] },
          },
          accountNumber: [parties.beneficiary.account],
        },
      ],
    });
    for (const [form, message] of [
      ['2020', m2020],
      ['2023', m2023],
    ] as const)
      expect(readIvms101(message)).toEqual({
        form,
        originator: { names: ['김민준', 'KIM MINJUN'], accounts: [parties.originator.account] },
        beneficiary: { names: ['홍길동'], accounts: [parties.beneficiary.account], nameTries: 1 },
      });
  });

  it('refuses a message without persons, without a legal name, or with a person both natural and legal', () => {
    expect(() => readIvms101({ originator: {}, beneficiary: {} })).toThrow(/originatorPersons/);
    const noLegal = fixture('trisa-inquiry.json').IVMS101;
    noLegal.beneficiary.beneficiaryPersons[0].naturalPerson.name.nameIdentifier[0].nameIdentifierType = 'ALIA';
    expect(() => readIvms101(noLegal)).toThrow(Ivms101Invalid);
    const both = fixture('trisa-inquiry.json').IVMS101;
    both.originator.originatorPersons[0].legalPerson = { name: { nameIdentifier: [{ legalPersonName: 'X' }] } };
    expect(() => readIvms101(both)).toThrow(/not both/);
  });

  it('reads one beneficiary named at most twice in each kind of identifier, and counts the distinct names it tries', () => {
    const inquiry = () => fixture('trisa-inquiry.json').IVMS101;
    const legl = (primaryIdentifier: string) => ({ primaryIdentifier, nameIdentifierType: 'LEGL' });
    const persons = inquiry();
    persons.beneficiary.beneficiaryPersons.push({ naturalPerson: { name: { nameIdentifier: [legl('Smith')] } } });
    expect(() => readIvms101(persons)).toThrow(/one person, not several/);
    for (const kind of ['nameIdentifier', 'localNameIdentifier']) {
      const listed = inquiry();
      listed.beneficiary.beneficiaryPersons[0].naturalPerson.name[kind] = ['A', 'B', 'C'].map(legl);
      expect(() => readIvms101(listed)).toThrow(new RegExp(`at most 2 times .*${kind} has 3`));
    }
    const legal = inquiry();
    legal.beneficiary.beneficiaryPersons = [
      { legalPerson: { name: { nameIdentifier: ['A', 'B', 'C'].map((legalPersonName) => ({ legalPersonName })) } } },
    ];
    expect(() => readIvms101(legal)).toThrow(/legalPerson.name.nameIdentifier has 3/);
    // The originator is not matched against anyone: its persons and names are read as sent.
    const originators = inquiry();
    originators.originator.originatorPersons[0].naturalPerson.name.nameIdentifier.push(legl('B'), legl('C'));
    expect(readIvms101(originators).originator.names).toHaveLength(3);
    // Two identifiers of one name (spacing aside) are one try; another name is another.
    const tries = inquiry();
    tries.beneficiary.beneficiaryPersons[0].naturalPerson.name = {
      nameIdentifier: [legl('Mildred Tilcott'), { ...legl('Mildred'), secondaryIdentifier: 'Tilcott' }],
      localNameIdentifier: [legl('밀드레드')],
    };
    expect(readIvms101(tries).beneficiary.nameTries).toBe(2);
    // A name of spaces alone is no name: refused, not counted as a try of nothing.
    const blank = inquiry();
    blank.beneficiary.beneficiaryPersons[0].naturalPerson.name.nameIdentifier = [legl('   ')];
    expect(() => readIvms101(blank)).toThrow(/has no name/);
  });

  it('reads a resolution only with exactly one of approved {address, https callback}, rejected, version', () => {
    expect(parseResolution({ version: '3.1.0' })).toEqual({ kind: 'pending' });
    expect(parseResolution({ rejected: 'no' })).toEqual({ kind: 'rejected', reason: 'no' });
    expect(parseResolution({ approved: { address: '0xabc', callback: 'https://b.example/c' } })).toEqual({
      kind: 'approved',
      address: '0xabc',
      callback: 'https://b.example/c',
    });
    for (const bad of [
      {},
      { approved: 'yes, probably' },
      { approved: { address: '0xabc', callback: 'http://b.example/c' } },
      { approved: { address: '0xabc', callback: 'https://b.example/c' }, rejected: 'no' },
      [],
    ])
      expect(parseResolution(bad)).toBeUndefined();
  });

  it("names what is sent by Ether's SLIP-0044 symbol only on Ethereum mainnet, other coins and tokens by DTI, else not at all", () => {
    const evm = (chainId: number, extra: Record<string, unknown> = {}) =>
      ({ kind: 'evm', networkId: 'X', chainId, nativeSymbol: chainId === 137 ? 'POL' : 'ETH', ...extra }) as never;
    expect(trpAssetOf(evm(1), 'ETH')).toEqual({ slip0044: 'ETH' });
    expect(trpAssetOf(evm(10), 'ETH')).toBeUndefined(); // a layer 2's Ether is not mainnet Ether
    expect(trpAssetOf(evm(8453, { coinDti: 'ABCDEFGH1' }), 'ETH')).toEqual({ dti: 'ABCDEFGH1' });
    expect(trpAssetOf(evm(137), 'POL')).toEqual({ dti: 'RQWW6J6K0' });
    expect(trpAssetOf({ kind: 'solana', networkId: 'SOLANA' } as never, 'SOL')).toEqual({ dti: '20J63Z4N3' });
    const withUsdt = evm(1, { tokens: { USDT: { address: '0x', decimals: 6, dti: USDT_ETHEREUM_DTI } } });
    expect(trpAssetOf(withUsdt, 'USDT')).toEqual({ dti: USDT_ETHEREUM_DTI });
    expect(assetLabelsOf(withUsdt)).toEqual(['slip0044:ETH', `dti:${USDT_ETHEREUM_DTI}`]);
    expect([assetLabel({ slip0044: 60 }), assetLabel({ slip0044: 'eth' }), assetLabel({})]).toEqual([
      'slip0044:ETH',
      'slip0044:ETH',
      'slip0044:BTC',
    ]);
  });

  it('compares EVM accounts in any case, Solana accounts (base58) exactly', () => {
    const evm = '0x2222222222222222222222222222222222222222';
    expect(sameAccount(evm, evm.toUpperCase().replace('0X', '0x'))).toBe(true);
    const solana = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
    expect(sameAccount(solana, solana)).toBe(true);
    expect(sameAccount(solana, solana.toLowerCase())).toBe(false);
  });

  describe("our client against the sandbox's exchanges (TRISA's handler, mutual TLS)", () => {
    const identities = travelRuleIdentities();
    const faults = new FaultInjector();
    const network = new SandboxVaspNetwork(identities, { faults: faults.middleware('trp') });
    let hanbit: TravelRuleCounterpart;
    let client: TrpClient;
    const account = '0x2222222222222222222222222222222222222222';
    const message = () =>
      ivms101Message(
        {
          originator: {
            name: { local: '김민준' },
            customerId: 'usr_1',
            account: '0x1111111111111111111111111111111111111111',
          },
          beneficiary: { name: '홍길동', account },
          originatingVasp: { name: 'Wallet Korea', id: 'wallet-kr' },
          beneficiaryVasp: { name: 'Hanbit', id: 'vasp-hanbit' },
        },
        '2020',
      );
    beforeAll(async () => {
      await network.listen();
      [hanbit] = counterpartsFromJson(network.counterpartsJson());
      client = new TrpClient({
        timeoutMs: 5000,
        tls: { cert: identities.service.cert, key: identities.service.key, ca: identities.ca },
      });
      network.accounts.set(account, {
        vaspId: 'vasp-hanbit',
        beneficiaryName: '홍길동',
        behaviour: 'approve',
        callbackDelayMs: 10,
      });
    });
    afterAll(() => network.close());

    /** Our inquiry to `to` (Hanbit's Travel Address URL unless said), as `as` (Hanbit unless said) would be reached. */
    const ask = (options: { amount?: string; asset?: TrpAsset; to?: string; as?: TravelRuleCounterpart } = {}) =>
      client.inquiry(options.as ?? hanbit, options.to ?? decodeTravelAddress(network.travelAddressOf('vasp-hanbit')), {
        requestIdentifier: crypto.randomUUID(),
        asset: options.asset ?? { slip0044: 'ETH' },
        amount: options.amount ?? '1',
        callback: `${hanbit.origin}/resolve`,
        ivms101: message(),
      });
    const inquiry = (amount: string) => ask({ amount });

    it('sends the amount as the JSON number it is (every digit), and takes the approval it answers', async () => {
      const resolution = await inquiry('0.000000000000000123');
      expect(resolution).toEqual({
        kind: 'approved',
        address: account,
        callback: expect.stringMatching(/\/confirm\//),
      });
      const received = network.received.at(-1)!;
      expect(received.apiVersion).toBe('3.1.0');
      expect((received.body as { amount: number }).amount).toBe(1.23e-16);
      expect(
        await client.confirm(hanbit, (resolution as { callback: string }).callback, {
          requestIdentifier: received.requestIdentifier,
          txid: '0xfeed',
        }),
      ).toEqual({ status: 204 });
      expect(received.confirmation).toEqual({ txid: '0xfeed' });
    });

    it('takes a rejection, and a decision to come ({version}) as pending', async () => {
      network.accounts.get(account)!.behaviour = 'reject';
      expect(await inquiry('1')).toEqual({ kind: 'rejected', reason: 'the beneficiary refused the transfer' });
      network.accounts.get(account)!.behaviour = 'async';
      expect(await inquiry('1')).toEqual({ kind: 'pending' });
      network.accounts.get(account)!.behaviour = 'approve';
    });

    it("takes a 500 (TRISA's answer to a coin it does not know) as an outage to retry, never as a decision", async () => {
      await expect(ask({ asset: { slip0044: 'SOL' } })).rejects.toThrow(/answered 500/);
    });

    it('takes 429 and 408 as the exchange asking again later, not as a refusal of the transfer', async () => {
      for (const status of [429, 408]) {
        faults.set('trp', { failTimes: 1, status, paths: ['/transfers'] });
        await expect(inquiry('1')).rejects.toThrow(ProviderUnavailable);
        expect(await inquiry('1')).toMatchObject({ kind: 'approved' });
      }
    });

    it('refuses to talk to a server whose certificate is not the one pinned for it, though of the same CA', async () => {
      const impostor = { ...hanbit, pins: [identities.vasps['vasp-coinmaru'].fingerprint256.replace(/:/g, '')] };
      const before = network.received.length;
      await expect(ask({ as: impostor })).rejects.toThrow(/not the one pinned/);
      expect(network.received).toHaveLength(before);
    });

    it('never sends to a URL off the counterpart origin (a Travel Address of someone else)', async () => {
      await expect(ask({ to: 'https://localhost:1/transfers' })).rejects.toThrow(/not on/);
    });
  });

  describe('our TRP listener (mutual TLS)', () => {
    const identities = travelRuleIdentities();
    const hanbit = identities.vasps['vasp-hanbit'];
    const dispatcher = new Agent({ connect: { cert: hanbit.cert, key: hanbit.key, ca: identities.ca } });
    afterAll(() => dispatcher.close());

    it("answers with our api-version and the request's request-identifier, as TRISA's server does: every answer, errors too", async () => {
      // Whatever the app answers (here 204, or 400 for a version it does not read), the listener's headers are on it.
      const listener = await serveTravelRuleListener(
        (req, res) => {
          res.writeHead(req.headers['api-version'] === '3.1.0' ? 204 : 400).end();
        },
        {
          host: '127.0.0.1',
          port: 0,
          tls: { cert: identities.service.cert, key: identities.service.key, ca: identities.ca },
        },
      );
      const { port } = listener.address() as AddressInfo;
      const post = async (path: string, headers: Record<string, string>) => {
        const answer = await fetch(`https://127.0.0.1:${port}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: '{}',
          dispatcher,
        });
        await answer.arrayBuffer();
        return [answer.status, answer.headers.get('api-version'), answer.headers.get('request-identifier')];
      };
      try {
        const id = crypto.randomUUID();
        const trp = { 'api-version': '3.1.0', 'request-identifier': id };
        expect(await post('/trp/v3/confirmations/trr_x/token', trp)).toEqual([204, '3.1.0', id]);
        expect(await post('/trp/v3/inquiries', { ...trp, 'api-version': '2.0.0' })).toEqual([400, '3.1.0', id]);
        expect(await post('/v1/anything', trp)).toEqual([404, '3.1.0', id]);
        // Only an identifier the routes read is echoed: none, or one they refuse, is not.
        expect(await post('/trp/v3/inquiries', { 'api-version': '3.1.0' })).toEqual([204, '3.1.0', null]);
        expect(await post('/trp/v3/inquiries', { ...trp, 'request-identifier': 'x'.repeat(65) })).toEqual([
          204,
          '3.1.0',
          null,
        ]);
      } finally {
        listener.close();
      }
    });
  });
});
