import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { travelRuleMessage } from '../../integrations/travel-rule';
import { Contract, Wallet, type InterfaceAbi } from 'ethers';
import { loadArtifact } from '../../contracts/build';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, type RegisteredUser } from '../helpers/http';
import { INCLUDED, fundedUser } from '../helpers/transfers';
import { callApi } from '../helpers/bank';
import { transferPin, type TransferFields } from '../helpers/pin';
import { runServiceProcess, waitFor, type ServiceProcess } from '../helpers/processes';
import { TransferEntity, TravelRuleRecordEntity, UserPinEntity } from '../../db/entities';
import { readTravelRuleMessage } from '../../integrations/travel-rule';
import { newOperatorToken, operatorTokenHash } from '../../api/operators/operators';
import { bearer } from '../helpers/wallet';
import { closeAccountBody } from '../helpers/pin';
import type { AbstractSqlConnection } from '@mikro-orm/knex';
import { DEFAULT_RATE_LIMITS } from '../../api/http/rate-limits';

/** Inbound inquiries: how many a counterpart may send (an hour), and how many new ones one address may get (a day). */
const COUNTERPART_LIMIT = 12;
const ADDRESS_LIMIT = 4;
const sha256 = (token: string) => createHash('sha256').update(token).digest('hex');

/** 714.285714 USDT at 1,400 won is worth 1,000,000 won (rounded up); 714.285 USDT is worth 999,999. */
const AT_THRESHOLD = '714.285714';
const BELOW_THRESHOLD = '714.285';

interface Inquiry {
  vaspId: string;
  requestIdentifier: string;
  apiVersion: string;
  body: { IVMS101: unknown; callback: string; amount: string };
  decision: string;
  confirmedTxid?: string;
}

/**
 * The Travel Rule end to end on a real chain: the sandbox's VASP directory and its two exchanges' TRP endpoints, the
 * API's check and record, the workflow's inquiry and durable wait for the callback, and self-custody ownership proofs.
 */
describe.each(testDatabases())('the Travel Rule on $name', (kind) => {
  let stack: TestStack;
  let user: RegisteredUser;
  let account: string;
  const PIN = '482915';
  const operatorToken = newOperatorToken();
  // Another provider that asks us (inbound TRP): its token, and its server where our answers arrive.
  const counterpartToken = randomBytes(24).toString('base64url');
  // Two more providers at the same server: one that probes names, one that floods (each has its own limit).
  const proberToken = randomBytes(24).toString('base64url');
  const floodToken = randomBytes(24).toString('base64url');
  const answers: Array<{ path: string; requestIdentifier: string; body: unknown }> = [];
  let counterpart: Server;
  let counterpartOrigin = '';
  beforeAll(async () => {
    counterpart = createServer((req, res) => {
      let data = '';
      req.on('data', (c: Buffer) => {
        data += c.toString();
      });
      req.on('end', () => {
        answers.push({
          path: req.url ?? '',
          requestIdentifier: String(req.headers['request-identifier'] ?? ''),
          body: JSON.parse(data || 'null'),
        });
        res.statusCode = 204;
        res.end();
      });
    }).listen(0, '127.0.0.1');
    await new Promise((r) => counterpart.once('listening', r));
    counterpartOrigin = `http://127.0.0.1:${(counterpart.address() as AddressInfo).port}`;
    stack = await startTestStack(kind, {
      chains: true,
      env: {
        TRAVEL_RULE_THRESHOLD_KRW: '1000000',
        TRANSFER_WAIT_SECONDS: '20',
        TRAVEL_RULE_TIMEOUT_SECONDS: '6',
        OPERATOR_TOKENS: JSON.stringify({ compliance: operatorTokenHash(operatorToken) }),
        TRAVEL_RULE_COUNTERPARTS: JSON.stringify({
          'vasp-partner': {
            name: 'Partner Exchange',
            tokenSha256: sha256(counterpartToken),
            origin: counterpartOrigin,
          },
          'vasp-prober': { name: 'Prober Exchange', tokenSha256: sha256(proberToken), origin: counterpartOrigin },
          'vasp-flood': { name: 'Flood Exchange', tokenSha256: sha256(floodToken), origin: counterpartOrigin },
        }),
        // The suites' default (no limit in the way) but for inbound inquiries.
        RATE_LIMITS: JSON.stringify({
          ...Object.fromEntries(
            Object.keys(DEFAULT_RATE_LIMITS).map((rule) => [rule, { points: 100_000, seconds: 60 }]),
          ),
          'travel-rule-counterpart': { points: COUNTERPART_LIMIT, seconds: 3600 },
          'travel-rule-address': { points: ADDRESS_LIMIT, seconds: 24 * 3600 },
        }),
      },
    });
    ({ user, account } = await fundedUser(stack, PIN, '20000'));
  });
  afterAll(async () => {
    await stack?.stop();
    counterpart?.close();
  });

  const usdt = () =>
    new Contract(stack.chains[0]!.usdt, loadArtifact('TestUSDT').abi as InterfaceAbi, stack.chains[0]!.funder);
  const body = (to: string, amount: string, beneficiary?: string): TransferFields => ({
    to_address: to,
    network: 'ETHEREUM',
    token: 'USDT',
    amount,
    ...(beneficiary ? { beneficiary_name: beneficiary } : {}),
  });
  const prepare = (fields: TransferFields) =>
    callApi(stack, '/api/v1/transfer/crypto/prepare', user, { json: fields, key: randomUUID() });
  const execute = async (fields: TransferFields, key = randomUUID()) =>
    callApi(stack, '/api/v1/transfer/crypto/execute', user, {
      json: { pin: await transferPin(stack, PIN, fields, key), ...fields },
      key,
    });
  const host = async (address: string, beneficiaryName: string, behaviour = 'approve', callbackDelayMs = 200) => {
    expect(
      (
        await call(`${stack.sandboxUrl}/vasps/v1/_addresses/ETHEREUM/${address}`, {
          method: 'PUT',
          json: { vaspId: 'vasp-hanbit', beneficiaryName, behaviour, callbackDelayMs },
        })
      ).status,
    ).toBe(200);
  };
  const inquiriesFor = async (address: string) =>
    ((await call(`${stack.sandboxUrl}/trp/_inquiries`)).body.inquiries as Inquiry[]).filter((i) =>
      JSON.stringify(i.body.IVMS101).includes(address),
    );
  const recordOf = (transferId: string) => stack.orm.em.fork().findOneOrFail(TravelRuleRecordEntity, { transferId });
  const balanceOf = async (address: string) => (await usdt().getFunction('balanceOf')(address)) as bigint;
  /** A TRP v3 inquiry from a counterpart (by its token) about `address`, naming `name` as the beneficiary. */
  const inquire = (name: string, address: string, token = counterpartToken, requestIdentifier: string = randomUUID()) =>
    call(`${stack.apiUrl}/trp/v3/inquiries`, {
      headers: { authorization: `Bearer ${token}`, 'api-version': '3.1.0', 'request-identifier': requestIdentifier },
      json: {
        asset: { network: 'ETHEREUM', symbol: 'ETH' },
        amount: '2',
        callback: `${counterpartOrigin}/callbacks/${requestIdentifier}`,
        IVMS101: travelRuleMessage({
          originator: { name: { local: '김철수' }, customerId: 'partner-42', address: Wallet.createRandom().address },
          beneficiary: { name, address },
          originatingVasp: { id: 'vasp-partner', name: 'Partner Exchange' },
          beneficiaryVasp: { id: 'wallet-kr', name: 'Wallet Korea Co., Ltd.' },
        }),
      },
    });
  /** What our callback told the counterpart about the inquiry of that request-identifier (waits for it). */
  const callbackFor = async (requestIdentifier: string) => {
    await waitFor(() => answers.some((a) => a.requestIdentifier === requestIdentifier), 30_000, 'the answer');
    return answers.find((a) => a.requestIdentifier === requestIdentifier)!.body;
  };
  const inboundRecord = (recordId: string) => stack.orm.em.fork().findOneOrFail(TravelRuleRecordEntity, { recordId });

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
      async () => (await inquiriesFor(recipient))[0]?.confirmedTxid === sent.body.tx_hash,
      30_000,
      'the transfer confirmation',
    );
    const [inquiry, ...more] = await inquiriesFor(recipient);
    expect(more).toEqual([]);
    expect(inquiry!.apiVersion).toBe('3.1.0');
    const message = readTravelRuleMessage(inquiry!.body.IVMS101);
    const originator = message.originator.originatorPerson[0]!;
    expect(JSON.stringify(originator.naturalPerson)).toContain(user.person.name);
    expect(originator.accountNumber).toEqual([account]);
    expect(message.beneficiary.beneficiaryPerson[0]!.accountNumber).toEqual([recipient]);
    expect(JSON.stringify(message.beneficiary)).toContain('김철수');
    expect(JSON.stringify(message.originatingVASP)).toContain('wallet-kr');
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
    // A callback URL with the wrong token, or for a transfer with no inquiry, is not found; a bad body is 400.
    const [any] = await stack.orm.em.fork().find(TransferEntity, { travelRule: { $ne: null } }, { limit: 1 });
    const url = (transferId: string, token: string) => `${stack.apiUrl}/trp/v3/callbacks/${transferId}/${token}`;
    expect((await call(url(any!.transferId, '0'.repeat(32)), { json: { rejected: 'forged' } })).status).toBe(404);
    expect((await call(url(`tr_${randomUUID()}`, '0'.repeat(32)), { json: { rejected: 'forged' } })).status).toBe(404);
    expect((await call(any!.travelRule!.callbackUrl, { json: { approved: 'yes' } })).status).toBe(400);
    // The real URL after the transfer went on: no longer waiting.
    expect((await call(any!.travelRule!.callbackUrl, { json: { rejected: 'too late' } })).status).toBe(409);
  });

  it('waits durably: a worker SIGKILLed while waiting for the provider, the decision arriving meanwhile, sends once', async () => {
    const recipient = Wallet.createRandom().address;
    await host(recipient, '정우성', 'approve', 6000);
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

  it('refuses transfers under the rule while the directory cannot answer (503), never guessing', async () => {
    stack.faults.set('vasps', { failTimes: 100, status: 503 });
    try {
      const answer = await prepare(body(Wallet.createRandom().address, AT_THRESHOLD, '누구'));
      expect([answer.status, answer.body.type, answer.headers.get('retry-after')]).toEqual([
        503,
        '/problems/vasp-directory-unavailable',
        '30',
      ]);
      expect((await prepare(body(Wallet.createRandom().address, BELOW_THRESHOLD))).status).toBe(200);
    } finally {
      stack.faults.clear();
    }
  });

  it("answers another provider's inquiry about our user's account: the verified name approves, another is not confirmed, a stranger or a bad message refused", async () => {
    const matched = await inquire(user.person.name, account.toLowerCase());
    expect([matched.status, matched.body.received]).toEqual([200, true]);
    const mismatched = await inquire('이영희', account);
    expect(mismatched.status).toBe(200);
    const approvedRecord = await inboundRecord(matched.body.recordId);
    expect(await callbackFor(approvedRecord.requestIdentifier)).toEqual({ approved: { address: account } });
    const rejectedRecord = await inboundRecord(mismatched.body.recordId);
    expect(await callbackFor(rejectedRecord.requestIdentifier)).toEqual({ rejected: 'beneficiary not confirmed' });
    expect([approvedRecord.direction, approvedRecord.userId, approvedRecord.reason]).toEqual([
      'inbound',
      user.userId,
      'approved',
    ]);
    expect(rejectedRecord.reason).toBe('rejected: beneficiary name mismatch');
    expect(approvedRecord.payloadSealed).not.toContain(user.person.name);
    expect((await inquire(user.person.name, account, 'not-a-partner')).status).toBe(401);
    const malformed = await call(`${stack.apiUrl}/trp/v3/inquiries`, {
      headers: {
        authorization: `Bearer ${counterpartToken}`,
        'api-version': '3.1.0',
        'request-identifier': randomUUID(),
      },
      json: { callback: `${counterpartOrigin}/x`, IVMS101: { originator: {} } },
    });
    expect(malformed.status).toBe(400);
  });

  it('answers an address that is not ours, a closed account and a wrong name alike (status, body, callback); only our record says which', async () => {
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
    const recordIds: Record<string, string> = {};
    for (const [probe, [name, address]] of Object.entries(probes)) {
      const requestIdentifier = randomUUID();
      const answer = await inquire(name, address, counterpartToken, requestIdentifier);
      recordIds[probe] = answer.body?.recordId;
      // What the counterpart can compare: the status, the content type, the body (ids aside) and the callback.
      seen[probe] = {
        status: answer.status,
        contentType: answer.headers.get('content-type'),
        body: {
          ...answer.body,
          ...(answer.body?.recordId ? { recordId: /^trr_[0-9a-f-]{36}$/.test(answer.body.recordId) } : {}),
        },
        callback: answer.status === 200 ? await callbackFor(requestIdentifier) : null,
      };
    }
    expect(seen.closed).toEqual(seen.unknown);
    expect(seen.wrongName).toEqual(seen.unknown);
    expect(seen.unknown).toMatchObject({ status: 200, callback: { rejected: 'beneficiary not confirmed' } });
    const records = await Promise.all(Object.values(recordIds).map(inboundRecord));
    expect(records.map((r) => [r.userId, r.reason])).toEqual([
      [null, 'rejected: unknown address'],
      [departed.user.userId, 'rejected: account closed'],
      [user.userId, 'rejected: beneficiary name mismatch'],
    ]);
  });

  it('limits the names tried on one address a day, whoever asks: past the limit even the right name is refused (429), a retry is still answered', async () => {
    const probed = await fundedUser(stack, PIN, '0');
    const wrongNames = Array.from({ length: ADDRESS_LIMIT }, (_, i) => `${'김이박최정강조윤'[i % 8]}가명`);
    const tries: Array<{ requestIdentifier: string; status: number; recordId?: string }> = [];
    for (const name of wrongNames) {
      const requestIdentifier = randomUUID();
      const answer = await inquire(name, probed.account, proberToken, requestIdentifier);
      tries.push({ requestIdentifier, status: answer.status, recordId: answer.body?.recordId });
    }
    expect(tries.map((t) => t.status)).toEqual(wrongNames.map(() => 200));
    // The right name, by the prober or by anyone else, in any case: the address has had its tries for the day.
    const right = await inquire(probed.user.person.name, probed.account, proberToken);
    const byPartner = await inquire(probed.user.person.name, probed.account.toLowerCase());
    expect([right.status, byPartner.status]).toEqual([429, 429]);
    const retryAfter = Number(right.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(23 * 3600);
    expect(retryAfter).toBeLessThanOrEqual(24 * 3600);
    // A retry (same request-identifier) answers its record without spending a try; it cannot test another name.
    const retry = await inquire(probed.user.person.name, probed.account, proberToken, tries[0]!.requestIdentifier);
    expect([retry.status, retry.body.recordId]).toEqual([200, tries[0]!.recordId]);
    for (const t of tries)
      expect(await callbackFor(t.requestIdentifier)).toEqual({ rejected: 'beneficiary not confirmed' });
    // Another address is counted apart.
    expect((await inquire(user.person.name, Wallet.createRandom().address, proberToken)).status).toBe(200);
  });

  it("limits each counterpart's inquiries: over its limit it gets 429 with Retry-After, other counterparts are still answered", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < COUNTERPART_LIMIT; i++)
      statuses.push((await inquire(user.person.name, Wallet.createRandom().address, floodToken)).status);
    expect(statuses.filter((status) => status === 429)).toEqual([]);
    const over = await inquire(user.person.name, Wallet.createRandom().address, floodToken);
    expect([over.status, over.body.type]).toEqual([429, expect.stringContaining('rate-limited')]);
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect((await inquire(user.person.name, Wallet.createRandom().address)).status).toBe(200);
  });

  it('finds the beneficiary through the address index, never reading every account', async () => {
    const knex = (stack.orm.em.getConnection() as AbstractSqlConnection).getKnex();
    const statements: Array<{ sql: string; bindings: unknown[] }> = [];
    const listen = (query: { sql: string; bindings?: unknown[] }) => {
      if (/smart_accounts/.test(query.sql)) statements.push({ sql: query.sql, bindings: query.bindings ?? [] });
    };
    knex.on('query', listen);
    try {
      expect((await inquire(user.person.name, account.toLowerCase())).status).toBe(200);
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

  it('keeps every exchange after the account is closed: operators export them with their payloads; users cannot', async () => {
    const path = `/v1/compliance/users/${user.userId}/records`;
    expect((await call(`${stack.apiUrl}${path}`, { headers: bearer(user) })).status).toBe(401);
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
