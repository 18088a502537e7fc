import { testNamespace } from '../helpers/global-setup';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, registerUser, type RegisteredUser } from '../helpers/http';
import { newOperatorToken, operatorTokenHash } from '../../api/operators/operators';
import { registrationWorkflowId } from '../../workflows/messages';

const UI_ORIGIN = 'http://127.0.0.1:8233';

/**
 * Every payload of a workflow's history as Temporal stores it (encrypted), in the codec protocol's JSON form; less
 * search attributes, which Temporal keeps plain to index them (ours hold steps and statuses, never personal data).
 */
async function historyPayloads(
  stack: TestStack,
  workflowId: string,
): Promise<Array<{ metadata: Record<string, string>; data: string }>> {
  const { history } = await stack.temporal.workflowService.getWorkflowExecutionHistory({
    namespace: testNamespace(),
    execution: { workflowId },
  });
  const found: Array<{ metadata: Record<string, string>; data: string }> = [];
  const walk = (value: unknown): void => {
    if (!value || typeof value !== 'object' || value instanceof Uint8Array) return;
    const candidate = value as { metadata?: Record<string, Uint8Array>; data?: unknown };
    if (candidate.data instanceof Uint8Array && candidate.metadata && typeof candidate.metadata === 'object') {
      found.push({
        metadata: Object.fromEntries(
          Object.entries(candidate.metadata).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
        ),
        data: Buffer.from(candidate.data).toString('base64'),
      });
      return;
    }
    for (const [key, inner] of Object.entries(value)) if (key !== 'searchAttributes') walk(inner);
  };
  walk(history?.events ?? []);
  return found;
}

const plain = (payloads: Array<{ data?: string }>) =>
  payloads.map((p) => Buffer.from(p.data ?? '', 'base64').toString('utf8')).join('\n');

/**
 * The Temporal UI's codec endpoint: an operator (token or session cookie) gets the service's encrypted payloads
 * decoded with personal data redacted; nobody else gets anything, and only the UI's origin may call it from a browser.
 */
describe('operator codec for the Temporal UI', () => {
  const token = newOperatorToken();
  let stack: TestStack;
  let user: RegisteredUser;
  let payloads: Awaited<ReturnType<typeof historyPayloads>>;

  beforeAll(async () => {
    stack = await startTestStack(testDatabases()[0]!, {
      env: { OPERATOR_TOKENS: JSON.stringify({ alice: operatorTokenHash(token) }), CODEC_CORS_ORIGINS: UI_ORIGIN },
    });
    user = await registerUser(stack);
    payloads = await historyPayloads(stack, registrationWorkflowId(user.regId));
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const decode = (headers: Record<string, string>, body: unknown = { payloads }) =>
    call(`${stack.apiUrl}/codec/decode`, { headers: { 'x-namespace': testNamespace(), ...headers }, json: body });

  it('stores the registration encrypted: the history holds no personal data in the clear', () => {
    expect(payloads.length).toBeGreaterThan(4);
    expect(payloads.every((p) => Buffer.from(p.metadata.encoding!, 'base64').toString() === 'binary/encrypted')).toBe(
      true,
    );
    expect(plain(payloads)).not.toContain(user.person.phone);
  });

  it('decodes for an operator token, with names, birth date, phone, CI/DI and the backup redacted', async () => {
    const answer = await decode({ authorization: `Bearer ${token}` });
    expect(answer.status).toBe(200);
    expect(answer.body.payloads).toHaveLength(payloads.length);
    const text = plain(answer.body.payloads);
    expect(text).toContain(user.regId); // the workflow input, readable
    expect(text).toContain('"name":"[redacted]"'); // the identity provider's result and the OCR reading
    expect(text).toContain('"encryptedMnemonic":"[redacted]"');
    for (const secret of [
      user.person.name,
      user.person.phone,
      user.person.birthDate,
      user.passToken,
      user.backup.encryptedMnemonic,
    ])
      expect(text).not.toContain(secret);
    const encodings = new Set(
      answer.body.payloads.map((p: { metadata: Record<string, string> }) =>
        Buffer.from(p.metadata.encoding!, 'base64').toString(),
      ),
    );
    expect([...encodings].sort()).toEqual(expect.arrayContaining(['json/plain']));
    expect(encodings.has('binary/encrypted')).toBe(false); // every one opened (void results are binary/null)
  });

  it('answers a payload it did not seal as it came', async () => {
    const foreign = {
      metadata: { encoding: Buffer.from('binary/encrypted').toString('base64') },
      data: Buffer.from('not ours').toString('base64'),
    };
    const answer = await decode({ authorization: `Bearer ${token}` }, { payloads: [foreign] });
    expect(answer.body.payloads).toEqual([foreign]);
  });

  it("refuses everyone else: no credential, a wrong or malformed token, a user's access token, a forged session", async () => {
    expect((await decode({})).status).toBe(401);
    expect((await decode({ authorization: `Bearer ${newOperatorToken()}` })).body.type).toBe(
      '/problems/invalid-operator-token',
    );
    expect((await decode({ authorization: 'Bearer op_short' })).status).toBe(401);
    expect((await decode({ authorization: `Bearer ${user.accessToken}` })).status).toBe(401);
    expect((await decode({ cookie: `wallet_operator=${user.accessToken}` })).body.type).toBe(
      '/problems/invalid-operator-session',
    );
    expect(
      (await decode({ authorization: `Bearer ${token}` }, { payloads: [{ data: '!!not base64!!' }] })).status,
    ).toBe(400);
    // Malformed requests: a body that is not JSON, a missing or unknown field, the wrong method.
    const malformed = await call(`${stack.apiUrl}/codec/decode`, {
      headers: { authorization: `Bearer ${token}` },
      raw: '{"payloads": [',
    });
    expect([malformed.status, malformed.body.type]).toEqual([400, '/problems/malformed-json']);
    expect((await decode({ authorization: `Bearer ${token}` }, {})).body.errors[0].detail).toMatch(/payloads/);
    expect((await decode({ authorization: `Bearer ${token}` }, { payloads: [], extra: 1 })).status).toBe(400);
    expect((await call(`${stack.apiUrl}/codec/session`, { json: {} })).status).toBe(400);
    expect((await call(`${stack.apiUrl}/codec/session`, { raw: 'token=op_x' })).status).toBe(400);
    const wrongMethod = await call(`${stack.apiUrl}/codec/decode`, { headers: { authorization: `Bearer ${token}` } });
    expect([wrongMethod.status, wrongMethod.headers.get('allow')]).toEqual([405, 'POST']);
  });

  it('signs an operator in with an HttpOnly, SameSite=Strict cookie on /codec that decodes, and out again', async () => {
    expect((await call(`${stack.apiUrl}/codec/session`, { json: { token: newOperatorToken() } })).status).toBe(401);
    const signedIn = await call(`${stack.apiUrl}/codec/session`, { json: { token } });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body).toEqual({ operator: 'alice', expiresAt: expect.any(String) });
    const cookie = signedIn.headers.get('set-cookie')!;
    expect(cookie).toMatch(
      /^wallet_operator=[\w-]+\.[\w-]+\.[\w-]+; path=\/codec; expires=.+; samesite=strict; httponly$/i,
    );
    const session = cookie.split(';')[0]!;
    const answer = await decode({ cookie: session });
    expect(answer.status).toBe(200);
    expect(plain(answer.body.payloads)).toContain(user.regId);
    // The session is not an access token either.
    expect(
      (
        await call(`${stack.apiUrl}/v1/account/profile`, {
          headers: { authorization: `Bearer ${session.split('=')[1]}` },
        })
      ).status,
    ).toBe(401);
    const signedOut = await call(`${stack.apiUrl}/codec/session`, { method: 'DELETE', headers: { cookie: session } });
    expect(signedOut.status).toBe(204);
    expect(signedOut.headers.get('set-cookie')).toMatch(/^wallet_operator=; path=\/codec; expires=Thu, 01 Jan 1970/i);
    expect((await call(`${stack.apiUrl}/codec/login`)).headers.get('content-type')).toMatch(/^text\/html/);
  });

  it("lets only the Temporal UI's origin call it from a browser, with credentials", async () => {
    const preflight = (origin: string) =>
      call(`${stack.apiUrl}/codec/decode`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,x-namespace',
        },
      });
    const allowed = await preflight(UI_ORIGIN);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    expect(allowed.headers.get('access-control-allow-credentials')).toBe('true');
    expect(allowed.headers.get('access-control-allow-headers')).toContain('x-namespace');
    const other = await preflight('http://evil.example');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    // The app's CORS (CORS_ORIGINS, none here) does not open the codec, nor the codec's origin the app's routes.
    const app = await call(`${stack.apiUrl}/v1/account/profile`, {
      method: 'OPTIONS',
      headers: { origin: UI_ORIGIN, 'access-control-request-method': 'GET' },
    });
    expect(app.headers.get('access-control-allow-origin')).toBeNull();
  });
});
