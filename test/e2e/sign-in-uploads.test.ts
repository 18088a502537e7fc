import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, cardOf, registerUser, type RegisteredUser } from '../helpers/http';
import { idCardProof, startSignIn, verifyOnNewDevice, type NewDevice } from '../helpers/sign-in';
import { IdempotencyRecordEntity, UploadEntity } from '../../db/entities';

/**
 * Issue 36: a sign-in's ID-card upload is the one upload anyone can send (no access token yet). Its pass token is
 * checked before a byte of the body is read, so a stranger's upload is never buffered nor begins an Idempotency-Key
 * record; wrong pass tokens count against the address, and so do the proofs one address sends.
 */
describe('sign-in uploads before a credential', () => {
  let stack: TestStack;
  let user: RegisteredUser;
  let device: NewDevice;
  let signInId: string;
  beforeAll(async () => {
    stack = await startTestStack(testDatabases()[0]!, {
      env: {
        RATE_LIMITS: JSON.stringify({
          'failed-credentials': { points: 4, seconds: 300 },
          'sign-in-proof-address': { points: 2, seconds: 3600 },
        }),
      },
    });
    user = await registerUser(stack);
    device = await verifyOnNewDevice(stack, user.person);
    signInId = (await startSignIn(stack, device)).body.signInId;
  });
  afterAll(async () => stack?.stop());

  /**
   * Sends the headers of a 4 MiB multipart upload and only its first KiB, then waits for an answer: a server that
   * checks the pass token first answers at once; one that reads the body first waits for bytes that never come.
   */
  const partialUpload = (passToken: string): Promise<{ status: number; body: string } | 'waiting for the body'> =>
    new Promise((resolve, reject) => {
      const { hostname, port } = new URL(stack.apiUrl);
      const boundary = `----b${randomUUID()}`;
      const req = request({
        host: hostname,
        port,
        method: 'POST',
        path: `/v1/auth/sign-in/${signInId}/id-card`,
        headers: {
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': String(4 * 1024 * 1024),
          'x-pass-token': passToken,
          'idempotency-key': randomUUID(),
        },
      });
      const timer = setTimeout(() => {
        req.destroy();
        resolve('waiting for the body');
      }, 5_000);
      req.on('response', (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => {
          clearTimeout(timer);
          req.destroy();
          resolve({ status: res.statusCode!, body });
        });
      });
      req.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      req.write(`--${boundary}\r\nContent-Disposition: form-data; name="idCardType"\r\n\r\nresident_id\r\n`);
      req.write(`--${boundary}\r\nContent-Disposition: form-data; name="idCardImage"; filename="card.png"\r\n`);
      req.write(`Content-Type: image/png\r\n\r\n${'x'.repeat(1024)}`);
    });

  it("refuses a stranger's upload before reading it: no body buffered, no Idempotency-Key record, the guesses counted per address", async () => {
    const records = () => stack.orm.em.fork().count(IdempotencyRecordEntity, {});
    const uploads = () => stack.orm.em.fork().count(UploadEntity, { regId: `sign-in:${signInId}` });
    const [recordsBefore, uploadsBefore] = [await records(), await uploads()];
    // Before the fix this waited for the rest of the 4 MiB (the body was read, then the pass token checked).
    const refused = await partialUpload('not-the-pass-token');
    expect(refused).not.toBe('waiting for the body');
    expect(refused).toMatchObject({ status: 403 });
    expect([await records(), await uploads()]).toEqual([recordsBefore, uploadsBefore]);
    // Wrong pass tokens are refused credentials: the address is over its budget after a few.
    for (let i = 0; i < 3; i += 1) await partialUpload(`guess-${i}`);
    const limited = await partialUpload('guess-more');
    expect(limited).toMatchObject({ status: 429 });
    // The holder of the right pass token is still served (a valid credential is never refused for others' guesses).
    const proved = await idCardProof(stack, device, signInId, cardOf(user.person));
    expect(proved.status).toBe(200);
  });

  it('bounds the sign-in proofs one address sends, before their body is read', async () => {
    const other = await registerUser(stack);
    const phone = await verifyOnNewDevice(stack, other.person);
    const started = (await startSignIn(stack, phone)).body.signInId;
    // The proof above was this address's first; the second passes the limit (another person's card: refused),
    // the third is over it.
    const second = await idCardProof(stack, phone, started, { ...cardOf(other.person), idNumber: '9001151999999' });
    expect(second.status).toBe(422);
    const third = await idCardProof(stack, phone, started, cardOf(other.person));
    expect([third.status, third.body.type]).toEqual([429, '/problems/rate-limited']);
    expect(
      (await call(`${stack.apiUrl}/v1/auth/sign-in/${started}`, { headers: { 'x-pass-token': phone.passToken } })).body,
    ).toMatchObject({ status: 'in_progress' });
  });
});
