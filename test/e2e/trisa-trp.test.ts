import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Wallet } from 'ethers';
import { startTestStack, travelRuleTestIdentities, type TestStack } from '../helpers/stack';
import { testDatabases } from '../helpers/databases';
import { fundedUser, INCLUDED } from '../helpers/transfers';
import { callApi } from '../helpers/bank';
import { transferPin, type TransferFields } from '../helpers/pin';
import { waitFor } from '../helpers/processes';
import type { RegisteredUser } from '../helpers/http';
import { TravelRuleRecordEntity } from '../../db/entities';
import { encodeTravelAddress } from '../../integrations/travel-rule/travel-address';
import { USDT_ETHEREUM_DTI } from '../../integrations/travel-rule/assets';

const ROOT = join(__dirname, '../..');
const BINARY = join(ROOT, '.tools/bin/trp-counterpart');

/** 714.285714 USDT at 1,400 won is worth 1,000,000 won: the Travel Rule applies. */
const AT_THRESHOLD = '714.285714';

type Event = Record<string, unknown> & { event: string };

/** A run of TRISA's TRP library (interop/trisa-trp): its JSON lines, as they come. */
class Counterpart {
  readonly events: Event[] = [];
  private constructor(readonly child: ChildProcessWithoutNullStreams) {
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n')) {
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 1);
        if (line.trim()) this.events.push(JSON.parse(line) as Event);
      }
    });
  }

  static start(args: string[]): Counterpart {
    return new Counterpart(spawn(BINARY, args));
  }

  async next(event: string, after = 0): Promise<Event> {
    await waitFor(() => this.events.slice(after).some((e) => e.event === event), 30_000, `trp-counterpart ${event}`);
    return this.events.slice(after).find((e) => e.event === event)!;
  }

  async exit(): Promise<number> {
    if (this.child.exitCode !== null) return this.child.exitCode;
    return new Promise((resolve) => this.child.once('exit', (code) => resolve(code ?? -1)));
  }

  stop(): void {
    this.child.kill('SIGTERM');
  }
}

/**
 * The Travel Rule with an independent implementation: TRISA's open-source TRP (github.com/trisacrypto/trisa v1.1.1,
 * pkg/openvasp and pkg/ivms101, built from interop/trisa-trp) exchanges with the service in both directions, over
 * mutual TLS with pinned certificates. It sends us an inquiry we resolve and confirms it; it receives ours, parses its
 * IVMS101 with TRISA's package (names, accounts, validation) and resolves it, in the answer or later at our callback,
 * and receives our confirmation with the transaction id.
 */
describe("TRP v3 with TRISA's implementation (both directions)", () => {
  let stack: TestStack;
  let user: RegisteredUser;
  let account: string;
  const PIN = '482915';
  const peers: Counterpart[] = [];
  const files = { cert: '', key: '', ca: '', dir: mkdtempSync(join(tmpdir(), 'trisa-trp-')) };
  const tls = () => ['-cert', files.cert, '-key', files.key, '-ca', files.ca];
  /** TRISA-run VASPs serving inquiries, one per way of deciding: their origin. */
  const served: Record<'approve' | 'reject' | 'async', { peer: Counterpart; origin: string }> = {} as never;

  beforeAll(async () => {
    execFileSync('bash', [join(ROOT, 'interop/trisa-trp/build.sh'), BINARY], { stdio: 'pipe' });
    // A leaf of the network's CA for each TRISA-run VASP (serving localhost, a client certificate too): a
    // certificate names one VASP.
    const identities = travelRuleTestIdentities();
    Object.assign(files, { ca: identities.caFile });
    const pins: Record<string, string> = {};
    for (const decide of ['approve', 'reject', 'async'] as const) {
      const leaf = identities.issue!(`trisa-${decide}-${randomUUID().slice(0, 8)}`);
      pins[decide] = leaf.fingerprint256;
      if (decide === 'approve') Object.assign(files, { cert: leaf.certFile, key: leaf.keyFile });
      const peer = Counterpart.start([
        'serve',
        '-listen',
        '127.0.0.1:0',
        '-decide',
        decide,
        '-cert',
        leaf.certFile,
        '-key',
        leaf.keyFile,
        '-ca',
        identities.caFile,
      ]);
      peers.push(peer);
      const port = String((await peer.next('listening')).address).split(':')[1];
      served[decide] = { peer, origin: `https://localhost:${port}` };
    }
    stack = await startTestStack(testDatabases()[0]!, {
      chains: true,
      env: { TRAVEL_RULE_THRESHOLD_KRW: '1000000', TRANSFER_WAIT_SECONDS: '30', TRAVEL_RULE_TIMEOUT_SECONDS: '30' },
      travelRuleCounterparts: Object.fromEntries(
        Object.entries(served).map(([decide, { origin }]) => [
          `trisa-${decide}`,
          { name: `TRISA VASP (${decide})`, origin, certificateSha256: pins[decide]! },
        ]),
      ),
    });
    ({ user, account } = await fundedUser(stack, PIN, '5000'));
  });
  afterAll(async () => {
    for (const peer of peers) peer.stop();
    await stack?.stop();
  });

  const transfer = async (to: string, travelAddress: string, beneficiary: string) => {
    const fields = {
      to_address: to,
      network: 'ETHEREUM',
      token: 'USDT',
      amount: AT_THRESHOLD,
      beneficiary_name: beneficiary,
      travel_address: travelAddress,
    } as TransferFields;
    const key = randomUUID();
    return callApi(stack, '/api/v1/transfer/crypto/execute', user, {
      json: { pin: await transferPin(stack, PIN, fields, key), ...fields },
      key,
    });
  };

  it('we send it our inquiry: TRISA parses the IVMS101 (names, account), approves, and receives our confirmation', async () => {
    const { peer, origin } = served.approve;
    const recipient = Wallet.createRandom().address;
    const from = peer.events.length;
    const sent = await transfer(recipient, encodeTravelAddress(`${origin}/transfers`), 'Mildred Tilcott');
    expect([sent.status, sent.body.status, sent.body.detail]).toEqual([
      200,
      expect.stringMatching(INCLUDED),
      undefined,
    ]);
    const inquiry = await peer.next('inquiry', from);
    // TRISA's own reading of what we sent (pkg/openvasp's decoder, pkg/ivms101's names and validation).
    expect(inquiry).toMatchObject({
      apiVersion: '3.1.0',
      asset: { dti: USDT_ETHEREUM_DTI, slip0044: null },
      amount: Number(AT_THRESHOLD),
      originatorNames: expect.arrayContaining([user.person.name]),
      originatorAccounts: [account],
      beneficiaryNames: expect.arrayContaining(['Mildred Tilcott']),
      beneficiaryAccounts: [recipient],
      originatingVasp: [
        stack.config.TRAVEL_RULE_VASP_ID === 'wallet-kr' ? 'Wallet Korea Co., Ltd.' : expect.any(String),
      ],
      validation: null,
    });
    const confirmation = await peer.next('confirmation', from);
    expect(confirmation).toMatchObject({ requestIdentifier: inquiry.requestIdentifier, txid: sent.body.tx_hash });
    const record = await stack.orm.em
      .fork()
      .findOneOrFail(TravelRuleRecordEntity, { transferId: sent.body.transfer_id as string });
    expect(record).toMatchObject({
      status: 'approved',
      counterpartVaspId: 'trisa-approve',
      requestIdentifier: inquiry.requestIdentifier,
      asset: `dti:${USDT_ETHEREUM_DTI}`,
      amount: AT_THRESHOLD,
      txid: sent.body.tx_hash,
    });
  });

  it('resolved later: TRISA answers {version} and posts its approval to our callback, with its certificate', async () => {
    const { peer, origin } = served.async;
    const recipient = Wallet.createRandom().address;
    const from = peer.events.length;
    const sent = await transfer(recipient, encodeTravelAddress(`${origin}/transfers`), 'Mildred Tilcott');
    expect([sent.status, sent.body.status]).toEqual([200, expect.stringMatching(INCLUDED)]);
    expect(await peer.next('resolution-sent', from)).toMatchObject({ status: 200 });
    expect(await peer.next('confirmation', from)).toMatchObject({ txid: sent.body.tx_hash });
  });

  it('a rejection by TRISA fails the transfer with nothing sent', async () => {
    const { origin } = served.reject;
    const recipient = Wallet.createRandom().address;
    const sent = await transfer(recipient, encodeTravelAddress(`${origin}/transfers`), 'Mildred Tilcott');
    expect([sent.status, sent.body.type]).toEqual([422, '/problems/travel-rule-rejected']);
    expect(sent.body.detail).toContain('beneficiary not known here');
  });

  /** An IVMS101 (2020 form, as TRISA reads it) naming our user's account and `beneficiary`, in a file for TRISA. */
  const payloadFile = (beneficiary: string) => {
    const file = join(files.dir, `payload-${randomUUID()}.json`);
    const person = (name: string) => ({
      naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: name, nameIdentifierType: 'LEGL' }] } },
    });
    writeFileSync(
      file,
      JSON.stringify({
        originator: {
          originatorPersons: [person('Tilcott Mildred')],
          accountNumber: ['0x1111111111111111111111111111111111111111'],
        },
        beneficiary: { beneficiaryPersons: [person(beneficiary)], accountNumber: [account] },
        originatingVASP: {
          originatingVASP: {
            legalPerson: {
              name: { nameIdentifier: [{ legalPersonName: 'TRISA VASP', legalPersonNameIdentifierType: 'LEGL' }] },
            },
          },
        },
      }),
    );
    return file;
  };
  /** TRISA's client sending us an inquiry (to our Travel Address), and its confirmation when `extra` asks. */
  const sendToUs = (beneficiary: string, asset: string, amount: string, extra: string[] = []) => {
    const sender = Counterpart.start([
      'send',
      '-to',
      encodeTravelAddress(`${stack.travelRule.publicUrl}/trp/v3/inquiries`),
      '-ivms',
      payloadFile(beneficiary),
      '-asset',
      asset,
      '-amount',
      amount,
      ...tls(),
      ...extra,
    ]);
    peers.push(sender);
    return sender;
  };

  it('it sends us its inquiry about our user: we approve the verified name (TRISA reads our resolution), it confirms', async () => {
    const sender = sendToUs(user.person.name, 'ETH', '0.25', ['-txid', '0xfeedbeef']);
    const resolution = await sender.next('resolution');
    expect(resolution).toMatchObject({ status: 200, rejected: null, error: null, approved: { address: account } });
    // Our answers carry the headers TRISA's server sets, as its client reads them: our version, its identifier.
    expect([resolution.apiVersion, resolution.requestIdentifier]).toEqual(['3.1.0', resolution.sentIdentifier]);
    expect(await sender.next('confirmed')).toMatchObject({
      status: 204,
      error: null,
      apiVersion: '3.1.0',
      requestIdentifier: resolution.sentIdentifier,
    });
    expect(await sender.exit()).toBe(0);
    const records = await stack.orm.em
      .fork()
      .find(TravelRuleRecordEntity, { direction: 'inbound', userId: user.userId });
    expect(records).toEqual([
      expect.objectContaining({ reason: 'approved', asset: 'slip0044:ETH', amount: '0.25', txid: '0xfeedbeef' }),
    ]);
  });

  it('another name for our user is answered "beneficiary not confirmed", which TRISA reads as a rejection', async () => {
    const sender = sendToUs('Someone Else', `dti:${USDT_ETHEREUM_DTI}`, '10');
    const resolution = await sender.next('resolution');
    expect(resolution).toMatchObject({
      status: 200,
      approved: null,
      rejected: 'beneficiary not confirmed',
      apiVersion: '3.1.0',
    });
    expect(resolution.requestIdentifier).toBe(resolution.sentIdentifier);
    expect(await sender.exit()).toBe(0);
  });
});
