import { randomBytes, randomUUID } from 'node:crypto';
import { Agent, fetch } from 'undici';
import { ivms101Message, readIvms101 } from '../../integrations/travel-rule/ivms101';
import { decodeTravelAddress, encodeTravelAddress } from '../../integrations/travel-rule/travel-address';
import { USDT_ETHEREUM_DTI } from '../../integrations/travel-rule/assets';
import { codeIvms101Message } from '../../integrations/travel-rule/code/ivms101';
import { base64Of, codeKeyPair, sealCodePayload } from '../../integrations/travel-rule/code/crypto';
import type { SandboxVaspId } from '../../sandbox/travel-rule-network';
import { Contract, Wallet, type InterfaceAbi } from 'ethers';
import { loadArtifact } from '../../contracts/build';
import { onLastDatabase, testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, type RegisteredUser } from '../helpers/http';
import { INCLUDED, fundedUser } from '../helpers/transfers';
import { callApi } from '../helpers/bank';
import { transferPin, type TransferFields } from '../helpers/pin';
import { runServiceProcess, waitFor, type ServiceProcess } from '../helpers/processes';
import { TransferEntity, TravelRuleRecordEntity, UserPinEntity } from '../../db/entities';
import { newOperatorToken, operatorTokenHash } from '../../api/operators/operators';
import { bearer } from '../helpers/wallet';
import { closeAccountBody } from '../helpers/pin';
import type { AbstractSqlConnection } from '@mikro-orm/knex';
import { DEFAULT_RATE_LIMITS } from '../../api/http/rate-limits';

/** Inbound inquiries: how many a counterpart may send (an hour), and how many new ones one address may get (a day). */
const COUNTERPART_LIMIT = 40;
const ADDRESS_LIMIT = 5;
/** How many of an address's tries one counterpart may spend in a day. */
const COUNTERPART_ADDRESS_LIMIT = 4;

/** 714.285714 USDT at 1,400 won is worth 1,000,000 won (rounded up); 714.285 USDT is worth 999,999. */
const AT_THRESHOLD = '714.285714';
const BELOW_THRESHOLD = '714.285';

interface Inquiry {
  vaspId: string;
  requestIdentifier: string;
  apiVersion: string;
  body: { IVMS101: unknown; callback: string; amount: number; asset: unknown };
  decision: string;
  confirmation?: { txid?: string; canceled?: string };
}

/** What an exchange of the sandbox got back from us for its inquiry (TRP over mutual TLS). */
interface Sent {
  requestIdentifier: string;
  resolution: { status: number; contentType: string | null; retryAfter: string | null; body: Record<string, any> };
  confirmation?: { status: number; body: unknown };
}

/**
 * The Travel Rule end to end on a real chain: the sandbox's exchanges speaking TRP v3 as TRISA's implementation does,
 * over mutual TLS with pinned certificates, found by their Travel Addresses; the API's check and record, the
 * workflow's inquiry and its durable wait for a decision that comes later, our TRP listener's answers to their
 * inquiries, and self-custody ownership proofs.
 */
describe.each(testDatabases())('the Travel Rule on $name', (kind) => {
  /** A slow fault drill: on the last database only (helpers/databases.ts). */
  const drill = onLastDatabase(kind);
  let stack: TestStack;
  let user: RegisteredUser;
  let account: string;
  const PIN = '482915';
  const operatorToken = newOperatorToken();
  beforeAll(async () => {
    stack = await startTestStack(kind, {
      chains: true,
      env: {
        TRAVEL_RULE_THRESHOLD_KRW: '1000000',
        TRANSFER_WAIT_SECONDS: '20',
        TRAVEL_RULE_TIMEOUT_SECONDS: '6',
        OPERATOR_TOKENS: JSON.stringify({ compliance: operatorTokenHash(operatorToken) }),
        // The suites' default (no limit in the way) but for inbound inquiries.
        RATE_LIMITS: JSON.stringify({
          ...Object.fromEntries(
            Object.keys(DEFAULT_RATE_LIMITS).map((rule) => [rule, { points: 100_000, seconds: 60 }]),
          ),
          'travel-rule-counterpart': { points: COUNTERPART_LIMIT, seconds: 3600 },
          'travel-rule-address': { points: ADDRESS_LIMIT, seconds: 24 * 3600 },
          'travel-rule-counterpart-address': { points: COUNTERPART_ADDRESS_LIMIT, seconds: 24 * 3600 },
        }),
      },
    });
    ({ user, account } = await fundedUser(stack, PIN, '20000'));
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const usdt = () =>
    new Contract(stack.chains[0]!.usdt, loadArtifact('TestUSDT').abi as InterfaceAbi, stack.chains[0]!.funder);
  /** Our user's transfer; a recipient at an exchange is named by its Travel Address (`hosted` by host()). */
  const hostedAt = new Map<string, string>();
  const body = (to: string, amount: string, beneficiary?: string): TransferFields => ({
    to_address: to,
    network: 'ETHEREUM',
    token: 'USDT',
    amount,
    ...(beneficiary ? { beneficiary_name: beneficiary } : {}),
    ...(hostedAt.has(to) ? { travel_address: hostedAt.get(to)! } : {}),
  });
  const prepare = (fields: TransferFields) =>
    callApi(stack, '/api/v1/transfer/crypto/prepare', user, { json: fields, key: randomUUID() });
  const execute = async (fields: TransferFields, key = randomUUID()) =>
    callApi(stack, '/api/v1/transfer/crypto/execute', user, {
      json: { pin: await transferPin(stack, PIN, fields, key), ...fields },
      key,
    });
  /** An account at the sandbox's Hanbit exchange: its holder, and how Hanbit answers inquiries about it. */
  const host = async (address: string, beneficiaryName: string, behaviour = 'approve', callbackDelayMs = 200) => {
    const opened = await call(`${stack.sandboxUrl}/trp/_accounts/vasp-hanbit/ETHEREUM/${address}`, {
      method: 'PUT',
      json: { beneficiaryName, behaviour, callbackDelayMs },
    });
    expect([opened.status, opened.body.travelAddress]).toEqual([200, expect.stringMatching(/^ta/)]);
    hostedAt.set(address, opened.body.travelAddress);
  };
  const inquiriesFor = async (address: string) =>
    ((await call(`${stack.sandboxUrl}/trp/_inquiries`)).body.inquiries as Inquiry[]).filter((i) =>
      JSON.stringify(i.body.IVMS101).includes(address),
    );
  const recordOf = (transferId: string) => stack.orm.em.fork().findOneOrFail(TravelRuleRecordEntity, { transferId });
  const balanceOf = async (address: string) => (await usdt().getFunction('balanceOf')(address)) as bigint;
  /** Our Travel Address: where the sandbox's exchanges send their inquiries (our TRP listener, mutual TLS). */
  const ours = () => encodeTravelAddress(`${stack.travelRule.publicUrl}/trp/v3/inquiries`);
  /** A TRP v3 inquiry from a sandbox exchange about `address`, naming `name` as the beneficiary. */
  const inquire = async (
    name: string,
    address: string,
    vaspId = 'vasp-hanbit',
    requestIdentifier: string = randomUUID(),
    extra: Record<string, unknown> = {},
  ): Promise<Sent> => {
    const sent = await call(`${stack.sandboxUrl}/trp/_send/${vaspId}`, {
      json: {
        travelAddress: ours(),
        requestIdentifier,
        originator: { name: '김철수', account: Wallet.createRandom().address },
        beneficiary: { name, account: address },
        ...extra,
      },
    });
    expect(sent.status).toBe(200);
    return sent.body as Sent;
  };
  const inboundRecord = (vaspId: string, requestIdentifier: string) =>
    stack.orm.em
      .fork()
      .findOneOrFail(TravelRuleRecordEntity, { direction: 'inbound', counterpartVaspId: vaspId, requestIdentifier });
  /** A TRP message to our listener over mutual TLS, with a sandbox exchange's certificate. */
  const overTrp = async (url: string, json: unknown, vaspId: SandboxVaspId = 'vasp-hanbit') => {
    const { identities } = stack.travelRule.network;
    const dispatcher = new Agent({
      connect: { cert: identities.vasps[vaspId].cert, key: identities.vasps[vaspId].key, ca: identities.ca },
    });
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'api-version': '3.1.0', 'request-identifier': randomUUID() },
        body: JSON.stringify(json),
        dispatcher,
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    } finally {
      await dispatcher.close();
    }
  };

  /**
   * An entity of CODE's hub (one of its exchanges, or `codevasp` as CODE's dashboard tests do) sends us a Response API
   * request through the hub, its ivms101 sealed for us.
   */
  const viaHub = async (
    from: string,
    method: string,
    path: string,
    body?: Record<string, unknown>,
    ivms101?: object,
  ) => {
    const sent = await call(`${stack.sandboxUrl}/code/_exchanges/${from}/send`, {
      json: { to: 'wallet-sandbox', method, path, body, ivms101 },
    });
    expect(sent.status).toBe(200);
    return sent.body as { status: number; body: Record<string, any>; ivms101?: Record<string, any> };
  };

  /** The body of a CODE Asset Transfer Authorization of 1,500 USDT at 2,100,000 won (over the threshold). */
  const codeTransferBody = (transferId: string = randomUUID(), extra: Record<string, string> = {}) => ({
    transferId,
    currency: 'USDT',
    amount: '1500',
    tradePrice: '2100000',
    tradeCurrency: 'KRW',
    isExceedingThreshold: 'true',
    ...extra,
  });

  /** Our user's transfer at the threshold to a fresh address at the sandbox's Mapo exchange, over CODE's network. */
  const sendToMapo = async () => {
    const recipient = Wallet.createRandom().address;
    await call(`${stack.sandboxUrl}/code/_accounts/code-mapo/${recipient}`, {
      method: 'PUT',
      json: { name: '김철수' },
    });
    const sent = await execute({
      to_address: recipient,
      network: 'ETHEREUM',
      token: 'USDT',
      amount: AT_THRESHOLD,
      beneficiary_name: '김철수',
      beneficiary_vasp: 'code-mapo',
    });
    expect([sent.status, sent.body.status]).toEqual([200, expect.stringMatching(INCLUDED)]);
    return { recipient, sent, codeTransferId: (await recordOf(sent.body.transfer_id)).requestIdentifier as string };
  };

  it("applies from 1,000,000 won at the request's price: 999,999 is not under it; a hosted recipient needs the beneficiary's name", async () => {
    const recipient = Wallet.createRandom().address;
    await host(recipient, '김철수');
    const below = await prepare(body(recipient, BELOW_THRESHOLD));
    expect([below.status, below.body.value_krw, below.body.travel_rule]).toEqual([
      200,
      '999999',
      { applies: false, counterpart: null, threshold_krw: '1000000' },
    ]);
    const at = await prepare(body(recipient, AT_THRESHOLD, '김철수'));
    expect([at.status, at.body.value_krw, at.body.travel_rule]).toEqual([
      200,
      '1000000',
      {
        applies: true,
        counterpart: { id: 'vasp-hanbit', name: expect.stringContaining('Hanbit') },
        threshold_krw: '1000000',
      },
    ]);
    const nameless = await execute(body(recipient, AT_THRESHOLD));
    expect([nameless.status, nameless.body.type, nameless.body.vasp?.id]).toEqual([
      422,
      '/problems/beneficiary-name-required',
      'vasp-hanbit',
    ]);
    expect((await stack.orm.em.fork().findOneOrFail(UserPinEntity, { userId: user.userId })).failedAttempts).toBe(0);
    // Below the threshold nothing is asked of the counterpart.
    const small = await execute(body(recipient, BELOW_THRESHOLD));
    expect([small.status, small.body.status]).toEqual([200, expect.stringMatching(INCLUDED)]);
    expect(await inquiriesFor(recipient)).toEqual([]);
  });

  it('tells the hosting provider originator and beneficiary (IVMS101 over TRP) and sends once it approves; the record is sealed and kept five years', async () => {
    const recipient = Wallet.createRandom().address;
    await host(recipient, '김 철수');
    const sent = await execute(body(recipient, AT_THRESHOLD, '김철수'));
    expect([sent.status, sent.body.status]).toEqual([200, expect.stringMatching(INCLUDED)]);
    expect(await balanceOf(recipient)).toBe(714_285_714n);
    // Told the transaction id once it was sent (TRP transfer confirmation), to the URL its approval named.
    await waitFor(
      async () => (await inquiriesFor(recipient))[0]?.confirmation?.txid === sent.body.tx_hash,
      30_000,
      'the transfer confirmation',
    );
    const [inquiry, ...more] = await inquiriesFor(recipient);
    expect(more).toEqual([]);
    expect(inquiry!.apiVersion).toBe('3.1.0');
    // What TRISA reads: the asset by its DTI, the amount a number, IVMS101 in the 2020 form.
    expect(inquiry!.body.asset).toEqual({ dti: USDT_ETHEREUM_DTI });
    expect(inquiry!.body.amount).toBe(714.285714);
    expect(readIvms101(inquiry!.body.IVMS101)).toEqual({
      form: '2020',
      originator: { names: expect.arrayContaining([user.person.name]), accounts: [account] },
      beneficiary: { names: ['김철수'], accounts: [recipient], nameTries: 1 },
    });
    expect(JSON.stringify(inquiry!.body.IVMS101)).toContain('"customerNumber":"wallet-kr"');
    const record = await recordOf(sent.body.transfer_id);
    expect(record).toMatchObject({
      direction: 'outbound',
      status: 'approved',
      counterpartVaspId: 'vasp-hanbit',
      userId: user.userId,
      address: recipient,
    });
    expect(record.payloadSealed).not.toContain(user.person.name);
    expect(Buffer.from(record.payloadSealed, 'base64').toString('utf8')).not.toContain(user.person.name);
    const years = (record.retainUntil.getTime() - record.requestedAt.getTime()) / (365.25 * 86_400_000);
    expect(years).toBeGreaterThanOrEqual(5);
  });

  it('fails the transfer with nothing signed when the provider rejects (name mismatch) or does not answer in time', async () => {
    const mismatched = Wallet.createRandom().address;
    await host(mismatched, '김철수');
    const rejected = await execute(body(mismatched, AT_THRESHOLD, '이영희'));
    expect([rejected.status, rejected.body.type]).toEqual([422, '/problems/travel-rule-rejected']);
    expect(rejected.body.detail).toContain('beneficiary name mismatch');
    const silent = Wallet.createRandom().address;
    await host(silent, '박민수', 'timeout');
    const timedOut = await execute(body(silent, AT_THRESHOLD, '박민수'));
    expect([timedOut.status, timedOut.body.type]).toEqual([422, '/problems/travel-rule-timeout']);
    for (const address of [mismatched, silent]) {
      const transfer = await stack.orm.em.fork().findOneOrFail(TransferEntity, { toAddress: address });
      expect([transfer.status, transfer.userOpHash ?? null]).toEqual(['failed', null]); // never signed
      expect(await balanceOf(address)).toBe(0n);
    }
    expect(
      (await recordOf((await stack.orm.em.fork().findOneOrFail(TransferEntity, { toAddress: mismatched })).transferId))
        .status,
    ).toBe('rejected');
    expect(
      (await recordOf((await stack.orm.em.fork().findOneOrFail(TransferEntity, { toAddress: silent })).transferId))
        .status,
    ).toBe('timed_out');
  });

  it('takes the first decision: a malformed callback is refused (400), an approval sent twice moves the money once', async () => {
    for (const behaviour of ['malformed', 'twice']) {
      const recipient = Wallet.createRandom().address;
      await host(recipient, '최지우', behaviour);
      const sent = await execute(body(recipient, AT_THRESHOLD, '최지우'));
      expect([behaviour, sent.status, sent.body.status]).toEqual([behaviour, 200, expect.stringMatching(INCLUDED)]);
      expect(await balanceOf(recipient)).toBe(714_285_714n);
      expect((await recordOf(sent.body.transfer_id)).status).toBe('approved');
    }
    // Callbacks are TRP over mutual TLS: not on the API's own port, and only from the VASP the inquiry went to.
    const [any] = await stack.orm.em.fork().find(TransferEntity, { travelRule: { $ne: null } }, { limit: 1 });
    const callbackUrl = any!.travelRule!.callbackUrl;
    expect(callbackUrl.startsWith(`${stack.travelRule.publicUrl}/trp/v3/callbacks/`)).toBe(true);
    const onApiPort = callbackUrl.replace(stack.travelRule.publicUrl, stack.apiUrl);
    const trpHeaders = { 'api-version': '3.1.0', 'request-identifier': randomUUID() };
    expect((await call(onApiPort, { headers: trpHeaders, json: { rejected: 'forged' } })).status).toBe(401);
    expect((await overTrp(callbackUrl, { rejected: 'forged' }, 'vasp-coinmaru')).status).toBe(404);
    const url = (transferId: string, token: string) =>
      `${stack.travelRule.publicUrl}/trp/v3/callbacks/${transferId}/${token}`;
    expect((await overTrp(url(any!.transferId, '0'.repeat(32)), { rejected: 'forged' })).status).toBe(404);
    expect((await overTrp(url(`tr_${randomUUID()}`, '0'.repeat(32)), { rejected: 'forged' })).status).toBe(404);
    expect((await overTrp(callbackUrl, { approved: 'yes' })).status).toBe(400);
    // The real URL after the transfer went on: no longer waiting.
    expect((await overTrp(callbackUrl, { rejected: 'too late' })).status).toBe(409);
  });

  drill(
    'waits durably: a worker SIGKILLed while waiting for the provider, the decision arriving meanwhile, sends once',
    async () => {
      const recipient = Wallet.createRandom().address;
      await host(recipient, '정우성', 'async', 6000);
      await stack.stopWorker();
      const workers: ServiceProcess[] = [];
      let transferId = '';
      try {
        workers.push(runServiceProcess('worker/main.ts', stack.workerProcessEnv()));
        const key = randomUUID();
        const fields = body(recipient, AT_THRESHOLD, '정우성');
        const pin = await transferPin(stack, PIN, fields, key);
        const pending = callApi(stack, '/api/v1/transfer/crypto/execute', user, { json: { pin, ...fields }, key });
        await waitFor(async () => (await inquiriesFor(recipient)).length === 1, 60_000, 'the inquiry sent').catch(
          (error: Error) => {
            throw new Error(`${error.message}\n${workers[0]!.output()}`);
          },
        );
        workers[0]!.child.kill('SIGKILL');
        expect(await workers[0]!.exited).toBeNull();
        transferId = (await stack.orm.em.fork().findOneOrFail(TransferEntity, { toAddress: recipient })).transferId;
        // The provider's approval arrives while no worker runs: the API signals the workflow, Temporal keeps it.
        await new Promise((r) => setTimeout(r, 7000)); // past the provider's 6 s
        expect((await pending).status).toBe(202);
      } finally {
        for (const worker of workers) worker.child.kill('SIGKILL');
        await Promise.all(workers.map((w) => w.exited));
        await stack.startWorker();
      }
      await waitFor(
        async () => INCLUDED.test((await callApi(stack, `/api/v1/transfer/crypto/${transferId}`, user)).body.status),
        60_000,
        'the transfer sent',
      );
      expect(await balanceOf(recipient)).toBe(714_285_714n);
      expect(await inquiriesFor(recipient)).toHaveLength(1);
      expect((await recordOf(transferId)).status).toBe('approved');
    },
  );

  it("goes to a Korean exchange over CODE's network: the IVMS101 message sealed for it, sent once it verifies, the transaction id reported; denied, nothing is sent", async () => {
    const vasps = await callApi(stack, '/api/v1/transfer/vasps', user);
    expect(vasps.body.items).toEqual(
      expect.arrayContaining([{ id: 'code-gwanghwa', name: 'Gwanghwa Exchange Inc.', network: 'code' }]),
    );
    const recipient = Wallet.createRandom().address;
    const opened = await call(`${stack.sandboxUrl}/code/_accounts/code-gwanghwa/${recipient}`, {
      method: 'PUT',
      json: { name: '김철수' },
    });
    expect(opened.status).toBe(200);
    const fields = (amount: string, name: string, to = recipient): TransferFields => ({
      to_address: to,
      network: 'ETHEREUM',
      token: 'USDT',
      amount,
      beneficiary_name: name,
      beneficiary_vasp: 'code-gwanghwa',
    });
    const sent = await execute(fields(AT_THRESHOLD, '김철수'));
    expect([sent.status, sent.body.status]).toEqual([200, expect.stringMatching(INCLUDED)]);
    expect(await balanceOf(recipient)).toBe(714_285_714n);
    const hubTransfer = async () =>
      ((await call(`${stack.sandboxUrl}/code/_transfers`)).body.transfers as Array<Record<string, any>>).filter((t) =>
        JSON.stringify(t.ivms101).includes(recipient),
      );
    // CODE's Report Transfer Result: the transaction id, to the exchange that verified it.
    await waitFor(async () => (await hubTransfer())[0]?.txid === sent.body.tx_hash, 30_000, 'the txid at CODE');
    const [transfer, ...more] = await hubTransfer();
    expect(more).toEqual([]);
    expect(transfer).toMatchObject({
      beneficiaryVaspEntityId: 'code-gwanghwa',
      originatingVaspEntityId: 'wallet-sandbox',
      currency: 'USDT',
      amount: AT_THRESHOLD,
      tradeCurrency: 'KRW',
      result: 'verified',
      status: 'confirmed',
    });
    // CODE's IVMS101: PascalCase entities, the originator's name and date of birth, the accounts.
    const ivms = transfer!.ivms101;
    expect(ivms.Originator.accountNumber).toEqual([account]);
    expect(ivms.Originator.originatorPersons[0].naturalPerson.dateAndPlaceOfBirth.dateOfBirth).toMatch(
      /^\d{4}-\d{2}-\d{2}$/,
    );
    expect(JSON.stringify(ivms.Originator)).toContain(user.person.name);
    expect(ivms.Beneficiary.accountNumber).toEqual([recipient]);
    expect(ivms.OriginatingVASP.originatingVASP.legalPerson.name.nameIdentifier[0].legalPersonName).toBeTruthy();
    // Our record takes the txid once CODE has answered the report: a moment after the hub shows it.
    await waitFor(
      async () => (await recordOf(sent.body.transfer_id)).txid === sent.body.tx_hash,
      30_000,
      'the txid on our record',
    );
    expect(await recordOf(sent.body.transfer_id)).toMatchObject({
      counterpartVaspId: 'code:code-gwanghwa',
      status: 'approved',
      txid: sent.body.tx_hash,
    });

    // Another name than the holder's: denied by the exchange, nothing signed.
    const denied = await execute(fields(AT_THRESHOLD, '이영희'));
    expect([denied.status, denied.body.type]).toEqual([422, '/problems/travel-rule-rejected']);
    const [failed] = await stack.orm.em.fork().find(TransferEntity, { toAddress: recipient, status: 'failed' });
    expect([failed.status, failed.userOpHash ?? null]).toEqual(['failed', null]);
    // An exchange we do not exchange with on CODE, or both ways of naming a VASP at once.
    const unknown = await prepare({ ...fields(AT_THRESHOLD, '김철수'), beneficiary_vasp: 'code-nowhere' });
    expect([unknown.status, unknown.body.type]).toEqual([422, '/problems/beneficiary-vasp-unknown']);
    await host(recipient, '김철수');
    const both = await prepare({ ...fields(AT_THRESHOLD, '김철수'), travel_address: hostedAt.get(recipient)! });
    expect([both.status, both.body.type]).toEqual([422, '/problems/travel-rule-counterpart-ambiguous']);
  });

  it("asks a self-custody address's owner to prove control once: a proof by another key is refused, the right one lets it through", async () => {
    const own = Wallet.createRandom();
    const refused = await prepare(body(own.address, AT_THRESHOLD));
    expect([refused.status, refused.body.type, refused.body.inAddressBook]).toEqual([
      422,
      '/problems/address-ownership-required',
      false,
    ]);
    await callApi(stack, '/api/v1/transfer/address-book', user, {
      json: { network: 'ETHEREUM', address: own.address },
    });
    const base = `/api/v1/transfer/address-book/ETHEREUM/${own.address}/ownership`;
    const challenge = await callApi(stack, `${base}/challenge`, user, { json: {} });
    expect(challenge.status).toBe(200);
    expect(challenge.body.message).toContain(own.address);
    const wrong = await callApi(stack, base, user, {
      json: { signature: await Wallet.createRandom().signMessage(challenge.body.message) },
    });
    expect([wrong.status, wrong.body.type]).toEqual([422, '/problems/ownership-proof-invalid']);
    const proved = await callApi(stack, base, user, {
      json: { signature: await own.signMessage(challenge.body.message) },
    });
    expect([proved.status, proved.body.ownership_proved_at]).toEqual([200, expect.any(String)]);
    // The challenge is spent: the same signature again is refused.
    expect(
      (await callApi(stack, base, user, { json: { signature: await own.signMessage(challenge.body.message) } })).status,
    ).toBe(409);
    const sent = await execute(body(own.address, AT_THRESHOLD));
    expect([sent.status, sent.body.status]).toEqual([200, expect.stringMatching(INCLUDED)]);
    expect(await inquiriesFor(own.address)).toEqual([]);
  });

  it('refuses a Travel Address that does not decode or names a VASP we do not exchange with, and an asset it cannot name', async () => {
    const recipient = Wallet.createRandom().address;
    const mistyped = await prepare({
      ...body(recipient, AT_THRESHOLD, '누구'),
      travel_address: 'ta2W2HPKfHxgSgrzY178knqXHg1H3jfeQrwQ9JrKBs9wx',
    });
    expect([mistyped.status, mistyped.body.type]).toEqual([422, '/problems/travel-address-invalid']);
    const stranger = await prepare({
      ...body(recipient, AT_THRESHOLD, '누구'),
      travel_address: encodeTravelAddress('https://exchange.example/trp/transfers'),
    });
    expect([stranger.status, stranger.body.type, stranger.body.host]).toEqual([
      422,
      '/problems/travel-address-unknown-vasp',
      'exchange.example',
    ]);
    // POLYGON's USDT has no DTI in this stack's settings: it cannot be announced, so it is not sent.
    await host(recipient, '누구');
    const unnamed = await prepare({ ...body(recipient, AT_THRESHOLD, '누구'), network: 'POLYGON' });
    expect([unnamed.status, unnamed.body.type]).toEqual([422, '/problems/travel-rule-asset-unidentified']);
    // Below the threshold a Travel Address changes nothing.
    expect((await prepare(body(recipient, BELOW_THRESHOLD))).status).toBe(200);
  });

  it('gives users our Travel Address, for senders at other VASPs', async () => {
    const answer = await callApi(stack, '/api/v1/transfer/travel-address', user);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      travel_address: ours(),
      inquiry_url: `${stack.travelRule.publicUrl}/trp/v3/inquiries`,
    });
    expect(decodeTravelAddress(answer.body.travel_address)).toBe(`${stack.travelRule.publicUrl}/trp/v3/inquiries?t=i`);
  });

  it("answers another VASP's inquiry about our user's account at once: the verified name approves, another is not confirmed, a stranger or a bad message refused", async () => {
    const matched = await inquire(user.person.name, account.toLowerCase());
    expect(matched.resolution).toMatchObject({
      status: 200,
      body: {
        approved: {
          address: account,
          callback: expect.stringMatching(new RegExp(`^${stack.travelRule.publicUrl}/trp/v3/confirmations/trr_`)),
        },
      },
    });
    expect(Object.keys(matched.resolution.body)).toEqual(['approved']); // TRISA's client reads no other key
    const mismatched = await inquire('이영희', account);
    expect(mismatched.resolution).toMatchObject({ status: 200, body: { rejected: 'beneficiary not confirmed' } });
    const approvedRecord = await inboundRecord('vasp-hanbit', matched.requestIdentifier);
    expect([approvedRecord.direction, approvedRecord.userId, approvedRecord.reason, approvedRecord.asset]).toEqual([
      'inbound',
      user.userId,
      'approved',
      'slip0044:ETH',
    ]);
    expect((await inboundRecord('vasp-hanbit', mismatched.requestIdentifier)).reason).toBe(
      'rejected: beneficiary name mismatch',
    );
    expect(approvedRecord.payloadSealed).not.toContain(user.person.name);
    // The same request again is answered the same, and recorded once.
    const again = await inquire(user.person.name, account, 'vasp-hanbit', matched.requestIdentifier);
    expect(again.resolution.body).toEqual(matched.resolution.body);
    // Not over mutual TLS (the API's own port): refused; a message that is not IVMS101: 400.
    const plain = await call(`${stack.apiUrl}/trp/v3/inquiries`, {
      headers: { 'api-version': '3.1.0', 'request-identifier': randomUUID() },
      json: { asset: { slip0044: 'ETH' }, amount: 1, callback: 'https://x.example/c', IVMS101: {} },
    });
    expect(plain.status).toBe(401);
    const malformed = await inquire(user.person.name, account, 'vasp-hanbit', randomUUID(), {
      payload: { originator: {} },
    });
    expect(malformed.resolution.status).toBe(400);
    const version = await inquire(user.person.name, account, 'vasp-hanbit', randomUUID(), { apiVersion: '4.0.0' });
    expect(version.resolution.status).toBe(400);
  });

  it("takes the originator's confirmation once, at the URL our approval gave and only from that VASP", async () => {
    // Another of our users (each address has its daily tries of new inquiries).
    const payee = await fundedUser(stack, PIN, '0');
    const approved = await inquire(payee.user.person.name, payee.account, 'vasp-hanbit', randomUUID(), {
      confirm: { txid: '0xabc' },
    });
    expect(approved.confirmation).toMatchObject({ status: 204 });
    const record = await inboundRecord('vasp-hanbit', approved.requestIdentifier);
    expect([record.txid, record.canceled, record.confirmedAt]).toEqual(['0xabc', null, expect.any(Date)]);
    const url = approved.resolution.body.approved.callback as string;
    expect((await overTrp(url, { txid: '0xabc' })).status).toBe(204); // the same again: a retry
    expect((await overTrp(url, { txid: '0xdef' })).status).toBe(409);
    expect((await overTrp(url, { txid: '0xabc' }, 'vasp-coinmaru')).status).toBe(404);
    expect((await overTrp(url, { txid: '0xabc', canceled: 'both' })).status).toBe(400);
    expect((await overTrp(url.replace(/[0-9a-f]{32}$/, '0'.repeat(32)), { txid: '0xabc' })).status).toBe(404);
    // Something the account cannot hold there (SOL to an EVM account): not approved, whoever the beneficiary is, so no
    // originator sends what our user could never reach; answered as every other rejection.
    const sol = await inquire(payee.user.person.name, payee.account, 'vasp-hanbit', randomUUID(), {
      asset: { dti: '20J63Z4N3' },
    });
    expect(sol.resolution).toMatchObject({ status: 200, body: { rejected: 'beneficiary not confirmed' } });
    expect((await inboundRecord('vasp-hanbit', sol.requestIdentifier)).reason).toBe(
      'rejected: dti:20J63Z4N3 not received at this account',
    );
    // The same inquiry twice at once (a retry racing the first): one record, one answer for both.
    const requestIdentifier = randomUUID();
    const both = await Promise.all(
      [1, 2].map(() => inquire(payee.user.person.name, payee.account, 'vasp-hanbit', requestIdentifier)),
    );
    expect(both.map((b) => b.resolution.status)).toEqual([200, 200]);
    expect(both[1]!.resolution.body).toEqual(both[0]!.resolution.body);
    expect(
      await stack.orm.em
        .fork()
        .count(TravelRuleRecordEntity, { direction: 'inbound', counterpartVaspId: 'vasp-hanbit', requestIdentifier }),
    ).toBe(1);
  });

  it('answers an address that is not ours, a closed account and a wrong name alike (status, body); only our record says which', async () => {
    const departed = await fundedUser(stack, PIN, '0');
    const closed = await call(`${stack.apiUrl}/v1/account/close`, {
      headers: bearer(departed.user),
      json: await closeAccountBody(stack, PIN),
    });
    expect([closed.status, closed.body.status]).toEqual([200, 'closed']);
    const probes = {
      unknown: [user.person.name, Wallet.createRandom().address],
      closed: [departed.user.person.name, departed.account],
      wrongName: ['이영희', account],
    } as const;
    const seen: Record<string, unknown> = {};
    const requests: Record<string, string> = {};
    for (const [probe, [name, address]] of Object.entries(probes)) {
      const sent = await inquire(name, address);
      requests[probe] = sent.requestIdentifier;
      // What the counterpart can compare: the status, the content type and the body.
      seen[probe] = {
        status: sent.resolution.status,
        contentType: sent.resolution.contentType,
        body: sent.resolution.body,
      };
    }
    expect(seen.closed).toEqual(seen.unknown);
    expect(seen.wrongName).toEqual(seen.unknown);
    expect(seen.unknown).toMatchObject({ status: 200, body: { rejected: 'beneficiary not confirmed' } });
    const records = await Promise.all(Object.values(requests).map((r) => inboundRecord('vasp-hanbit', r)));
    expect(records.map((r) => [r.userId, r.reason])).toEqual([
      [null, 'rejected: unknown address'],
      [departed.user.userId, 'rejected: account closed'],
      [user.userId, 'rejected: beneficiary name mismatch'],
    ]);
  });

  it('limits the names tried on one address a day, whoever asks: past the limit even the right name is refused (429), a retry is still answered', async () => {
    const probed = await fundedUser(stack, PIN, '0');
    const wrongNames = Array.from({ length: ADDRESS_LIMIT }, (_, i) => `${'김이박최정강조윤'[i % 8]}가명`);
    const tries: Sent[] = [];
    // From two counterparts (no one counterpart may spend more than COUNTERPART_ADDRESS_LIMIT of them).
    for (const [i, name] of wrongNames.entries())
      tries.push(await inquire(name, probed.account, i % 2 === 0 ? 'vasp-coinmaru' : 'vasp-hanbit'));
    expect(tries.map((t) => t.resolution.status)).toEqual(wrongNames.map(() => 200));
    // The right name, by the prober or by anyone else, in any case: the address has had its tries for the day.
    const right = await inquire(probed.user.person.name, probed.account, 'vasp-coinmaru');
    const byAnother = await inquire(probed.user.person.name, probed.account.toLowerCase(), 'vasp-hanbit');
    expect([right.resolution.status, byAnother.resolution.status]).toEqual([429, 429]);
    const retryAfter = Number(right.resolution.retryAfter);
    expect(retryAfter).toBeGreaterThan(23 * 3600);
    expect(retryAfter).toBeLessThanOrEqual(24 * 3600);
    // A retry (same request-identifier) is answered as before without spending a try; it cannot test another name.
    const retry = await inquire(probed.user.person.name, probed.account, 'vasp-coinmaru', tries[0]!.requestIdentifier);
    expect(retry.resolution).toMatchObject({ status: 200, body: { rejected: 'beneficiary not confirmed' } });
    // Another address is counted apart.
    expect((await inquire(user.person.name, Wallet.createRandom().address, 'vasp-coinmaru')).resolution.status).toBe(
      200,
    );
  });

  it("tries no list of names at an address: a message naming many is refused on both listeners, and every distinct name spends one of the day's tries", async () => {
    const wrong = ['김민준', '이서연', '박지호', '최유진', '정하늘', '강도윤', '조수아', '윤서준', '장예은', '임지안'];
    const approvedAt = (userId: string) =>
      stack.orm.em.fork().count(TravelRuleRecordEntity, { direction: 'inbound', userId, reason: 'approved' });
    const legl = (primaryIdentifier: string, secondaryIdentifier?: string) => ({
      primaryIdentifier,
      ...(secondaryIdentifier ? { secondaryIdentifier } : {}),
      nameIdentifierType: 'LEGL',
    });

    // TRP: an IVMS101 message whose beneficiary carries the given name identifiers (or persons).
    const trpPayee = await fundedUser(stack, PIN, '0');
    const trpMessage = (beneficiaryPersons: unknown[]) => {
      const message = ivms101Message(
        {
          originator: { name: { local: '김철수' }, customerId: 'hanbit-1', account: Wallet.createRandom().address },
          beneficiary: { name: 'x', account: trpPayee.account },
          originatingVasp: { name: 'Hanbit Exchange', id: 'vasp-hanbit' },
          beneficiaryVasp: { name: 'us', id: 'us' },
        },
        '2020',
      ) as any;
      message.beneficiary.beneficiaryPersons = beneficiaryPersons;
      return message;
    };
    const named = (...identifiers: unknown[]) => [{ naturalPerson: { name: { nameIdentifier: identifiers } } }];
    const trp = (beneficiaryPersons: unknown[], vaspId: SandboxVaspId = 'vasp-hanbit') =>
      inquire('', trpPayee.account, vaspId, randomUUID(), { payload: trpMessage(beneficiaryPersons) });
    // Ten wrong names and the right one in one message (the person's ten Latin-script names and one local one), or nine
    // persons named wrongly and one rightly: refused (400) before the address is looked up, nothing recorded.
    const right = trpPayee.user.person.name;
    const oneList = await trp([
      {
        naturalPerson: {
          name: { nameIdentifier: wrong.map((name) => legl(name)), localNameIdentifier: [legl(right)] },
        },
      },
    ]);
    const tenPersons = await trp([...wrong.slice(1), right].flatMap((name) => named(legl(name))));
    expect([oneList.resolution.status, tenPersons.resolution.status]).toEqual([400, 400]);
    expect(oneList.resolution.body.detail).toMatch(/at most 2 times/);
    expect(tenPersons.resolution.body.detail).toMatch(/one person, not several/);
    // Two at a time: each distinct name spends one of the address's 5 tries a day (one name written twice, in another
    // spacing, spends one), and at most 4 of them by one counterpart; so Hanbit's third message is refused (its share),
    // Coinmaru's takes the address's last two, and the right name alone finds none left, whoever sends it.
    const [w1, w2, w3, w4, w5] = wrong as [string, string, string, string, string];
    const twice = await trp(named(legl(w1), legl(w1.slice(0, 1), w1.slice(1))));
    const pair1 = await trp(named(legl(w2), legl(w3)));
    const pair2 = await trp(named(legl(w4), legl(w5)));
    const pair2Elsewhere = await trp(named(legl(w4), legl(w5)), 'vasp-coinmaru');
    const last = await trp(named(legl(right)), 'vasp-coinmaru');
    expect([twice, pair1, pair2, pair2Elsewhere, last].map((sent) => sent.resolution.status)).toEqual([
      200, 200, 429, 200, 429,
    ]);
    expect([pair2, last].map((sent) => sent.resolution.body.detail)).toEqual([
      expect.stringContaining('travel-rule-counterpart-address'),
      expect.stringContaining('(travel-rule-address)'),
    ]);
    expect(await approvedAt(trpPayee.user.userId)).toBe(0);

    // CODE: an authorization through the hub (its ivms101 sealed for us), about another of our users.
    const codePayee = await fundedUser(stack, PIN, '0');
    const codeMessage = (beneficiaryPersons: unknown[]) => {
      const message = codeIvms101Message({
        originator: {
          name: { local: '김철수' },
          birthDate: '1990-01-01',
          customerId: 'gw-1',
          account: Wallet.createRandom().address,
        },
        beneficiary: { name: 'x', account: codePayee.account },
        originatingVasp: { name: 'Gwanghwa Exchange Inc.', id: 'code-gwanghwa' },
      }) as any;
      message.Beneficiary.beneficiaryPersons = beneficiaryPersons;
      return message;
    };
    const authorize = (beneficiaryPersons: unknown[], from = 'code-gwanghwa') =>
      viaHub(from, 'POST', '/v1/beneficiary/transfer', codeTransferBody(), codeMessage(beneficiaryPersons));
    const codeRight = codePayee.user.person.name;
    const legalName = (legalPersonName: string) => ({ legalPersonName, legalPersonNameIdentifierType: 'LEGL' });
    // A legal person's list of names holding the payee's among others; CODE's legal-person form (the company, then its
    // representative as a second person) with the payee's name as the representative: both refused, nothing tried.
    const legalList = await authorize([
      { legalPerson: { name: { nameIdentifier: [...wrong, codeRight].map(legalName) } } },
    ]);
    const representative = await authorize([
      { legalPerson: { name: { nameIdentifier: [legalName('Korbit Inc.')] } } },
      { naturalPerson: { name: { localNameIdentifier: [legl(codeRight)] } } },
    ]);
    expect([legalList, representative].map((sent) => [sent.status, sent.body.errorType])).toEqual([
      [503, 'INVALID_MSG_FIELD_VALUE'],
      [503, 'INVALID_MSG_FIELD_VALUE'],
    ]);
    // One name in both its orderings is one try; the address's 5 are spent by 1 + 2 + 2 distinct names (Mapo's two,
    // as no one exchange spends more than 4), so the right name finds none left.
    const ordered = await authorize([
      { naturalPerson: { name: { nameIdentifier: [legl('Lee', 'Younghee'), legl('Younghee', 'Lee')] } } },
    ]);
    const localPair = await authorize([{ naturalPerson: { name: { localNameIdentifier: [legl(w1), legl(w2)] } } }]);
    const pair = await authorize(
      [{ naturalPerson: { name: { localNameIdentifier: [legl(w3), legl(w4)] } } }],
      'code-mapo',
    );
    const codeLast = await authorize([{ naturalPerson: { name: { localNameIdentifier: [legl(codeRight)] } } }]);
    expect([ordered, localPair, pair].map((sent) => [sent.status, sent.body.result])).toEqual([
      [200, 'denied'],
      [200, 'denied'],
      [200, 'denied'],
    ]);
    expect([codeLast.status, codeLast.body.errorType, codeLast.body.errorMsg]).toEqual([
      503,
      'UNACCEPTABLE_REQUEST',
      expect.stringContaining('travel-rule-address'),
    ]);
    expect(await approvedAt(codePayee.user.userId)).toBe(0);
  });

  it("limits each counterpart's inquiries: over its limit it gets 429 with Retry-After, other counterparts are still answered", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < COUNTERPART_LIMIT; i++)
      statuses.push((await inquire(user.person.name, Wallet.createRandom().address, 'vasp-dasan')).resolution.status);
    expect(statuses.filter((status) => status === 429)).toEqual([]);
    const over = await inquire(user.person.name, Wallet.createRandom().address, 'vasp-dasan');
    expect([over.resolution.status, over.resolution.body.type]).toEqual([429, expect.stringContaining('rate-limited')]);
    const retryAfter = Number(over.resolution.retryAfter);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect((await inquire(user.person.name, Wallet.createRandom().address, 'vasp-coinmaru')).resolution.status).toBe(
      200,
    );
  });

  it('finds the beneficiary through the address index, never reading every account', async () => {
    const knex = (stack.orm.em.getConnection() as AbstractSqlConnection).getKnex();
    const statements: Array<{ sql: string; bindings: unknown[] }> = [];
    const listen = (query: { sql: string; bindings?: unknown[] }) => {
      if (/smart_accounts/.test(query.sql)) statements.push({ sql: query.sql, bindings: query.bindings ?? [] });
    };
    knex.on('query', listen);
    try {
      expect((await inquire(user.person.name, account.toLowerCase(), 'vasp-coinmaru')).resolution.status).toBe(200);
    } finally {
      knex.removeListener('query', listen);
    }
    // The plan of every statement the inquiry ran on smart_accounts. PostgreSQL plans a table this small with a scan
    // whatever its indexes; with scans priced out, a statement that can use an index does.
    const planOf = async ({ sql, bindings }: { sql: string; bindings: unknown[] }): Promise<string> => {
      if (kind.name === 'sqlite')
        return ((await knex.raw(`explain query plan ${sql}`, bindings as never)) as Array<{ detail: string }>)
          .map((row) => row.detail)
          .join('\n');
      return knex.transaction(async (trx) => {
        await trx.raw('set local enable_seqscan = off');
        const { rows } = await trx.raw(`explain ${sql}`, bindings as never);
        return (rows as Array<{ 'QUERY PLAN': string }>).map((row) => row['QUERY PLAN']).join('\n');
      });
    };
    const plans = await Promise.all(statements.map(planOf));
    expect(plans.length).toBeGreaterThan(0);
    expect(plans.filter((plan) => /Seq Scan|^SCAN /m.test(plan))).toEqual([]);
    expect(plans.filter((plan) => plan.includes('smart_accounts_address_lower_index'))).toHaveLength(1);
  });

  it("answers CODE's hub for Korean exchanges: an address search, a transfer's authorization (sealed both ways), its txid and cancelation; as originator, a transfer's status and data", async () => {
    const payee = await fundedUser(stack, PIN, '0');
    const message = (name: string, account: string) =>
      codeIvms101Message({
        originator: {
          name: { local: '김철수' },
          birthDate: '1990-01-01',
          customerId: 'gw-1',
          account: Wallet.createRandom().address,
        },
        beneficiary: { name, account },
        originatingVasp: { name: 'Gwanghwa Exchange Inc.', id: 'code-gwanghwa' },
      });
    const authorize = (from: string, transferId: string, ivms101: Record<string, unknown>, amount = '1500') =>
      viaHub(from, 'POST', '/v1/beneficiary/transfer', codeTransferBody(transferId, { amount }), ivms101);

    expect((await viaHub('code-gwanghwa', 'GET', '/v1/vasp/health')).status).toBe(200);
    // Virtual Asset Address Search: ours (any case) or not.
    const found = await viaHub(
      'code-gwanghwa',
      'POST',
      '/v1/beneficiary/VerifyAddress',
      { currency: 'USDT' },
      { Beneficiary: { beneficiaryPersons: [], accountNumber: [payee.account.toLowerCase()] } },
    );
    expect([found.status, found.body.result, found.body.beneficiaryVaspEntityId]).toEqual([
      200,
      'valid',
      'wallet-sandbox',
    ]);
    const stranger = Wallet.createRandom().address;
    const missing = await viaHub(
      'code-gwanghwa',
      'POST',
      '/v1/beneficiary/VerifyAddress',
      { currency: 'USDT' },
      { Beneficiary: { beneficiaryPersons: [], accountNumber: [stranger] } },
    );
    expect([missing.status, missing.body.result, missing.body.reasonType]).toEqual([
      200,
      'invalid',
      'NOT_FOUND_ADDRESS',
    ]);

    // Asset Transfer Authorization: the verified name (as CODE compares names) verifies, sealed back with our VASP.
    const transferA = randomUUID();
    const messageA = message(payee.user.person.name, payee.account);
    const verified = await authorize('code-gwanghwa', transferA, messageA);
    expect([verified.status, verified.body.result, verified.body.transferId]).toEqual([200, 'verified', transferA]);
    expect(verified.ivms101?.BeneficiaryVASP.beneficiaryVASP.legalPerson.name.nameIdentifier[0].legalPersonName).toBe(
      stack.config.TRAVEL_RULE_VASP_NAME,
    );
    expect(verified.ivms101?.Beneficiary.accountNumber).toEqual([payee.account]);
    const wrongName = await authorize('code-gwanghwa', randomUUID(), message('이영희', payee.account));
    expect([wrongName.status, wrongName.body.result, wrongName.body.reasonType, wrongName.ivms101]).toEqual([
      200,
      'denied',
      '',
      undefined,
    ]);
    const unknown = await authorize('code-gwanghwa', randomUUID(), message('김철수', stranger));
    expect([unknown.body.result, unknown.body.reasonType]).toEqual(['denied', 'NOT_FOUND_ADDRESS']);
    const recordA = await inboundRecord('code:code-gwanghwa', transferA);
    expect([recordA.userId, recordA.reason, recordA.asset, recordA.amount]).toEqual([
      payee.user.userId,
      'approved',
      'code:USDT',
      '1500',
    ]);
    expect(recordA.payloadSealed).not.toContain(payee.user.person.name);
    // The same transferId again is answered the same; for another amount it is a duplicate (503, CODE's error form).
    expect((await authorize('code-gwanghwa', transferA, messageA)).body.result).toBe('verified');
    const duplicate = await authorize('code-gwanghwa', transferA, messageA, '9');
    expect([duplicate.status, duplicate.body.errorType]).toEqual([503, 'DUPLICATED_TRANSFER_ID']);
    // Another message under the same transferId (another originator) is a duplicate too, not verified again.
    const otherOriginator = { ...messageA, Originator: {} };
    const reused = await authorize('code-gwanghwa', transferA, otherOriginator);
    expect([reused.status, reused.body.errorType]).toEqual([503, 'DUPLICATED_TRANSFER_ID']);
    // A chain the account is not deployed on is not approved (the funds would reach no account of ours).
    const elsewhere = await viaHub(
      'code-gwanghwa',
      'POST',
      '/v1/beneficiary/transfer',
      codeTransferBody(undefined, { network: 'BSC' }),
      message(payee.user.person.name, payee.account),
    );
    expect([elsewhere.body.result, elsewhere.ivms101]).toEqual(['denied', undefined]);
    // One message cannot try a list of names: a beneficiary written three ways is refused, nothing tried.
    const listed = message('이영희', payee.account) as any;
    listed.Beneficiary.beneficiaryPersons[0].naturalPerson.name.localNameIdentifier = [
      '김민준',
      '이서연',
      '박지호',
    ].map((name) => ({ primaryIdentifier: name, secondaryIdentifier: '', nameIdentifierType: 'LEGL' }));
    const guesses = await authorize('code-gwanghwa', randomUUID(), listed);
    expect([guesses.status, guesses.body.errorType]).toEqual([503, 'INVALID_MSG_FIELD_VALUE']);

    // Report Transfer Result, then the state flow: a second txid is refused, a cancelation after it is illegal.
    const txid = `0x${'ab'.repeat(32)}`;
    const reported = await viaHub('code-gwanghwa', 'POST', '/v1/beneficiary/transfer/txid', {
      transferId: transferA,
      txid,
    });
    expect(reported.body).toEqual({ transferId: transferA, result: 'normal', reasonType: '' });
    expect((await inboundRecord('code:code-gwanghwa', transferA)).txid).toBe(txid);
    const otherTxid = await viaHub('code-gwanghwa', 'POST', '/v1/beneficiary/transfer/txid', {
      transferId: transferA,
      txid: `0x${'cd'.repeat(32)}`,
    });
    expect(otherTxid.body).toMatchObject({ result: 'error', reasonType: 'TXID_ALREADY_EXISTS' });
    // The same hash written as the node prints it elsewhere (no 0x, upper case) is the same report.
    const sameAgain = await viaHub('code-gwanghwa', 'POST', '/v1/beneficiary/transfer/txid', {
      transferId: transferA,
      txid: txid.slice(2).toUpperCase(),
    });
    expect(sameAgain.body).toEqual({ transferId: transferA, result: 'normal', reasonType: '' });
    const lateCancel = await viaHub('code-gwanghwa', 'PUT', '/v1/vasp/transfer/status', {
      transferId: transferA,
      status: 'canceled',
    });
    expect(lateCancel.body).toMatchObject({ result: 'error', reasonType: 'ILLEGAL_STATEFLOW' });
    // Another exchange's transferId is not this one's: a transfer verified for Mapo, canceled, takes no txid.
    const transferB = randomUUID();
    expect((await authorize('code-mapo', transferB, message(payee.user.person.name, payee.account))).body.result).toBe(
      'verified',
    );
    const canceled = await viaHub('code-mapo', 'PUT', '/v1/vasp/transfer/status', {
      transferId: transferB,
      status: 'canceled',
      reasonType: 'LACK_OF_INFORMATION',
    });
    expect(canceled.body).toEqual({ transferId: transferB, result: 'normal', reasonType: '' });
    expect((await inboundRecord('code:code-mapo', transferB)).canceled).toBe('LACK_OF_INFORMATION');
    const afterCancel = await viaHub('code-mapo', 'POST', '/v1/beneficiary/transfer/txid', {
      transferId: transferB,
      txid,
    });
    expect(afterCancel.body).toMatchObject({ result: 'error', reasonType: 'TRANSFER_ALREADY_FAILED' });
    const notTheirs = await viaHub('code-mapo', 'POST', '/v1/beneficiary/transfer/txid', {
      transferId: transferA,
      txid,
    });
    expect([notTheirs.status, notTheirs.body.errorType]).toEqual([503, 'UNKNOWN_TRANSFER_ID']);
    // One transaction is one transfer's: Mapo cannot attach Gwanghwa's reported deposit to its own authorization.
    const transferC = randomUUID();
    expect((await authorize('code-mapo', transferC, message(payee.user.person.name, payee.account))).body.result).toBe(
      'verified',
    );
    const borrowed = await viaHub('code-mapo', 'POST', '/v1/beneficiary/transfer/txid', {
      transferId: transferC,
      txid: txid.toUpperCase().replace('0X', '0x'),
    });
    expect(borrowed.body).toMatchObject({ result: 'error', reasonType: 'TXID_ALREADY_EXISTS' });
    expect((await inboundRecord('code:code-mapo', transferC)).txid).toBeNull();

    // As the originating VASP: our transfer to Mapo over CODE, its status and its transaction found by Mapo only.
    const { recipient, sent, codeTransferId } = await sendToMapo();
    const status = await viaHub('code-mapo', 'POST', '/v1/vasp/transfer/status', { transferId: codeTransferId });
    expect(status.body).toEqual({
      transferId: codeTransferId,
      status: expect.stringMatching(/^(wait-confirm|confirmed)$/),
      txid: sent.body.tx_hash,
      vout: '',
    });
    const asked = await viaHub('code-gwanghwa', 'POST', '/v1/vasp/transfer/status', { transferId: codeTransferId });
    expect([asked.status, asked.body.errorType]).toEqual([503, 'UNKNOWN_TRANSFER_ID']);
    const search = (txidOf: string, address: string) =>
      viaHub('code-mapo', 'POST', '/v1/verification/tx', { txid: txidOf, beneficiaryAddress: address });
    expect((await search(sent.body.tx_hash.slice(2).toUpperCase(), recipient)).body).toEqual({ result: 'valid' });
    expect((await search(sent.body.tx_hash, stranger)).body).toEqual({ result: 'invalid' });

    // Asset Transfer Data Request: Mapo gets again what our authorization told it, sealed for its key.
    const theirId = randomUUID();
    const dataRequest = (from: string, txid: string, address: string, named = address) =>
      viaHub(
        from,
        'PUT',
        '/v1/verification/tx',
        { transferId: theirId, txid, beneficiaryAddress: address },
        { Beneficiary: { beneficiaryPersons: [], accountNumber: [named] } },
      );
    const data = await dataRequest('code-mapo', sent.body.tx_hash, recipient);
    expect(data.body).toMatchObject({
      result: 'normal',
      transferId: theirId,
      currency: 'USDT',
      amount: AT_THRESHOLD,
      tradeCurrency: 'KRW',
      isExceedingThreshold: 'true',
    });
    expect(data.ivms101?.Originator.accountNumber).toEqual([account]);
    expect(JSON.stringify(data.ivms101?.Originator)).toContain(user.person.name);
    expect(data.ivms101?.Originator.originatorPersons[0].naturalPerson.dateAndPlaceOfBirth.dateOfBirth).toMatch(
      /^\d{4}-\d{2}-\d{2}$/,
    );
    // Nothing it was not told: Gwanghwa asking about Mapo's transfer, or anyone about one never announced (a public
    // txid and address are not a right to the sender's name and birth date); a payload naming another address.
    const notGwanghwas = await dataRequest('code-gwanghwa', sent.body.tx_hash, recipient);
    expect([notGwanghwas.body.result, notGwanghwas.body.reasonType, notGwanghwas.ivms101]).toEqual([
      'error',
      'LACK_OF_INFORMATION',
      undefined,
    ]);
    const unannounced = Wallet.createRandom().address;
    const small = await execute(body(unannounced, '1'));
    expect([small.status, small.body.status]).toEqual([200, expect.stringMatching(INCLUDED)]);
    const unannouncedData = await dataRequest('code-mapo', small.body.tx_hash, unannounced);
    expect([unannouncedData.body.reasonType, unannouncedData.ivms101]).toEqual(['LACK_OF_INFORMATION', undefined]);
    expect(await stack.orm.em.fork().count(TravelRuleRecordEntity, { transferId: small.body.transfer_id })).toBe(0);
    const mismatched = await dataRequest('code-mapo', sent.body.tx_hash, recipient, stranger);
    expect([mismatched.status, mismatched.body.errorType]).toEqual([503, 'INVALID_MSG_FIELD_VALUE']);

    // Straight to the listener, as a listed member with a key of one's own (the hub passes the sender's key on
    // unsigned): refused, whatever it seals; a VASP off our list; a payload that does not open; a missing field.
    const listener = `http://127.0.0.1:${stack.config.TRAVEL_RULE_CODE_PORT}`;
    const impostor = await codeKeyPair(randomBytes(32).toString('base64'));
    const ours = (await codeKeyPair(stack.config.TRAVEL_RULE_CODE_SIGNING_KEY!)).publicKey;
    const direct = (origin: string, json: unknown, key = base64Of(impostor.publicKey)) =>
      call(`${listener}/v1/beneficiary/VerifyAddress`, {
        headers: { 'X-Request-Origin': origin, 'X-Code-Req-PubKey': key },
        json,
      });
    const forged = await direct('code:code-mapo', {
      currency: 'USDT',
      payload: await sealCodePayload(impostor, base64Of(ours), {
        ivms101: { Beneficiary: { beneficiaryPersons: [], accountNumber: [payee.account] } },
      }),
    });
    expect([forged.status, forged.body.errorType]).toEqual([503, 'UNACCEPTABLE_REQUEST']);
    const offList = await direct('code:code-nowhere', { currency: 'USDT', payload: 'AAAA' });
    expect([offList.status, offList.body.errorType]).toEqual([503, 'UNACCEPTABLE_REQUEST']);
    const sealedBadly = await viaHub('code-mapo', 'POST', '/v1/beneficiary/VerifyAddress', {
      currency: 'USDT',
      payload: Buffer.alloc(80).toString('base64'),
    });
    expect([sealedBadly.status, sealedBadly.body.errorType]).toEqual([503, 'INVALID_ENCRYPTED_BODY']);
    const noCurrency = await direct('code:code-mapo', { payload: 'AAAA' });
    expect([noCurrency.status, noCurrency.body.errorType]).toEqual([503, 'MISSING_REQUIRED_MSG_FIELD']);
    // Only CODE's endpoints are served there, and the API's are not among them.
    expect((await call(`${listener}/healthz`)).status).toBe(404);
  });

  it("answers CODE's own entity (codevasp) what concerns no person: health, searches, a transfer's status; never an authorization, a report, a cancelation or a transfer's data", async () => {
    const fromCode = (method: string, path: string, body?: Record<string, unknown>, ivms101?: object) =>
      viaHub('codevasp', method, path, body, ivms101);
    const refused = (answer: { status: number; body: Record<string, any>; ivms101?: unknown }) => [
      answer.status,
      answer.body.errorType,
      answer.ivms101,
    ];
    const REFUSED = [503, 'UNACCEPTABLE_REQUEST', undefined];
    const payee = await fundedUser(stack, PIN, '0');

    expect(await fromCode('GET', '/v1/vasp/health')).toMatchObject({ status: 200, body: { status: 'up' } });
    // Admitted by a key CODE lists for codevasp (Public Key Search), like a member: an address search is answered.
    const found = await fromCode(
      'POST',
      '/v1/beneficiary/VerifyAddress',
      { currency: 'USDT' },
      { Beneficiary: { beneficiaryPersons: [], accountNumber: [payee.account] } },
    );
    expect([found.status, found.body.result]).toEqual([200, 'valid']);

    // No transfer is authorized, reported or canceled for it, whatever it names: nothing is recorded.
    const transferId = randomUUID();
    const authorization = await fromCode(
      'POST',
      '/v1/beneficiary/transfer',
      codeTransferBody(transferId),
      codeIvms101Message({
        originator: {
          name: { local: '김철수' },
          birthDate: '1990-01-01',
          customerId: 'cv-1',
          account: Wallet.createRandom().address,
        },
        beneficiary: { name: payee.user.person.name, account: payee.account },
        originatingVasp: { name: 'CodeVASP', id: 'codevasp' },
      }),
    );
    expect(refused(authorization)).toEqual(REFUSED);
    const txid = `0x${randomBytes(32).toString('hex')}`;
    expect(refused(await fromCode('POST', '/v1/beneficiary/transfer/txid', { transferId, txid }))).toEqual(REFUSED);
    expect(refused(await fromCode('PUT', '/v1/vasp/transfer/status', { transferId, status: 'canceled' }))).toEqual(
      REFUSED,
    );
    expect(await stack.orm.em.fork().count(TravelRuleRecordEntity, { counterpartVaspId: 'code:codevasp' })).toBe(0);

    // Our transfer to Mapo over CODE: the hub, which relayed it, is told its state and finds its transaction, but is
    // not given the sender's name and birth date, which Mapo, its counterpart, is.
    const { recipient, sent, codeTransferId } = await sendToMapo();
    const status = await fromCode('POST', '/v1/vasp/transfer/status', { transferId: codeTransferId });
    expect([status.status, status.body]).toEqual([
      200,
      {
        transferId: codeTransferId,
        status: expect.stringMatching(/^(wait-confirm|confirmed)$/),
        txid: sent.body.tx_hash,
        vout: '',
      },
    ]);
    const search = await fromCode('POST', '/v1/verification/tx', {
      txid: sent.body.tx_hash,
      beneficiaryAddress: recipient,
    });
    expect([search.status, search.body]).toEqual([200, { result: 'valid' }]);
    const dataRequest = (from: string) =>
      viaHub(
        from,
        'PUT',
        '/v1/verification/tx',
        { transferId: randomUUID(), txid: sent.body.tx_hash, beneficiaryAddress: recipient },
        { Beneficiary: { beneficiaryPersons: [], accountNumber: [recipient] } },
      );
    expect(refused(await dataRequest('codevasp'))).toEqual(REFUSED);
    expect((await dataRequest('code-mapo')).body.result).toBe('normal');

    // Straight to the listener as codevasp with a key of one's own: refused, as for a member.
    const impostor = await codeKeyPair(randomBytes(32).toString('base64'));
    const ours = (await codeKeyPair(stack.config.TRAVEL_RULE_CODE_SIGNING_KEY!)).publicKey;
    const forged = await call(`http://127.0.0.1:${stack.config.TRAVEL_RULE_CODE_PORT}/v1/beneficiary/VerifyAddress`, {
      headers: { 'X-Request-Origin': 'code:codevasp', 'X-Code-Req-PubKey': base64Of(impostor.publicKey) },
      json: {
        currency: 'USDT',
        payload: await sealCodePayload(impostor, base64Of(ours), {
          ivms101: { Beneficiary: { beneficiaryPersons: [], accountNumber: [payee.account] } },
        }),
      },
    });
    expect([forged.status, forged.body.errorType]).toEqual([503, 'UNACCEPTABLE_REQUEST']);
  });

  it('keeps every exchange after the account is closed: operators export them with their payloads; users cannot', async () => {
    const path = `/v1/compliance/users/${user.userId}/records`;
    expect((await call(`${stack.apiUrl}${path}`, { headers: bearer(user) })).status).toBe(401);
    // A closure waits for every transfer to be final (409 transfer-in-progress before): the last test's may be only
    // confirmed yet.
    await waitFor(
      async () =>
        (await stack.orm.em.fork().count(TransferEntity, {
          userId: user.userId,
          status: { $nin: ['finalized', 'failed'] },
        })) === 0,
      30_000,
      'every transfer final',
    );
    const closed = await call(`${stack.apiUrl}/v1/account/close`, {
      headers: bearer(user),
      json: await closeAccountBody(stack, PIN),
    });
    expect([closed.status, closed.body.status]).toEqual([200, 'closed']);
    const exported = await call(`${stack.apiUrl}${path}`, { headers: { authorization: `Bearer ${operatorToken}` } });
    expect(exported.status).toBe(200);
    const statuses = (exported.body.travelRule as Array<{ status: string }>).map((r) => r.status).sort();
    expect(statuses).toEqual(expect.arrayContaining(['approved', 'rejected', 'timed_out']));
    const approved = (
      exported.body.travelRule as Array<{ status: string; ivms101: unknown; counterpart: { id: string } }>
    ).find((r) => r.status === 'approved')!;
    expect(approved.counterpart.id).toBe('vasp-hanbit');
    expect(JSON.stringify(approved.ivms101)).toContain(user.person.name);
    expect(await stack.orm.em.fork().count(TravelRuleRecordEntity, { userId: user.userId })).toBe(
      exported.body.travelRule.length,
    );
  });
});
