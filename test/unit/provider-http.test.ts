import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { ProviderAnswerInvalid, ProviderUnavailable, requestProvider } from '../../integrations/provider-http';

/**
 * requestProvider (integrations/provider-http.ts), every provider's HTTP call, against a local server answering what a
 * provider might: what it sends, and how each kind of answer is read or refused (a redirect never followed, an answer
 * past the cap never read whole, a hang cut at the deadline, a 5xx retryable).
 */
describe('requestProvider', () => {
  let server: Server;
  let baseUrl: string;
  let answer: (req: IncomingMessage, res: ServerResponse, body: string) => void;
  const seen: Array<{ method?: string; url?: string; headers: IncomingMessage['headers']; body: string }> = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString();
        seen.push({ method: req.method, url: req.url, headers: req.headers, body });
        answer(req, res, body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`;
  });
  beforeEach(() => {
    seen.length = 0;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const options = { baseUrl: '', timeoutMs: 2000 };
  const json = (status: number, body: unknown, headers: Record<string, string | string[]> = {}) => {
    answer = (_req, res) => {
      const text = Buffer.from(JSON.stringify(body));
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': text.length, ...headers });
      res.end(text);
    };
  };

  it('posts JSON under the base URL and reads the JSON answer, its status and its headers', async () => {
    json(
      201,
      { ok: true, name: '홍길동' },
      { 'Remaining-Req': 'group=default; min=1800; sec=29', 'set-cookie': ['a=1', 'b=2'] },
    );
    const got = await requestProvider<{ ok: boolean; name: string }>(
      { ...options, baseUrl, headers: { authorization: 'Bearer t' } },
      'POST',
      '/v1/things?account=123',
      { amount: '1000' },
      { 'x-request-id': 'r1' },
    );
    expect(got.status).toBe(201);
    expect(got.body).toEqual({ ok: true, name: '홍길동' });
    expect(got.headers.get('remaining-req')).toBe('group=default; min=1800; sec=29');
    expect(got.headers.get('Remaining-Req')).toBe('group=default; min=1800; sec=29');
    expect(got.headers.get('set-cookie')).toBe('a=1, b=2');
    expect(got.headers.get('x-absent')).toBeNull();
    expect(seen).toEqual([
      expect.objectContaining({
        method: 'POST',
        url: '/api/v1/things?account=123',
        body: JSON.stringify({ amount: '1000' }),
        headers: expect.objectContaining({
          'content-type': 'application/json',
          accept: 'application/json',
          authorization: 'Bearer t',
          'x-request-id': 'r1',
        }),
      }),
    ]);
  });

  it('sends a form body form-encoded, and a GET with no body', async () => {
    json(200, { token: 'abc' });
    await requestProvider({ ...options, baseUrl }, 'POST', 'oauth/token', new URLSearchParams({ a: '가 b', c: '&' }));
    await requestProvider({ ...options, baseUrl }, 'GET', 'status');
    expect(seen[0]).toMatchObject({
      body: 'a=%EA%B0%80+b&c=%26',
      headers: expect.objectContaining({ 'content-type': 'application/x-www-form-urlencoded' }),
    });
    expect(seen[1]).toMatchObject({ method: 'GET', url: '/api/status', body: '' });
  });

  it('answers a 4xx with its body for the caller to read, and an empty answer as undefined', async () => {
    json(404, { code: 'NOT_FOUND' });
    await expect(requestProvider({ ...options, baseUrl }, 'GET', 'x')).resolves.toMatchObject({
      status: 404,
      body: { code: 'NOT_FOUND' },
    });
    answer = (_req, res) => res.writeHead(204).end();
    await expect(requestProvider({ ...options, baseUrl }, 'POST', 'x', {})).resolves.toMatchObject({
      status: 204,
      body: undefined,
    });
  });

  it('never follows a redirect: ProviderAnswerInvalid, and nothing is sent where it points', async () => {
    answer = (_req, res) => res.writeHead(307, { location: `${baseUrl}elsewhere` }).end();
    const refused = requestProvider({ ...options, baseUrl }, 'POST', 'pay', { secret: 's' });
    await expect(refused).rejects.toBeInstanceOf(ProviderAnswerInvalid);
    await expect(refused).rejects.toThrow(/answered 307 \(a redirect elsewhere\); redirects are not followed/);
    expect(seen.map((s) => s.url)).toEqual(['/api/pay']);
  });

  it('refuses an answer past its cap, declared or not, without reading it whole', async () => {
    json(200, { big: 'x'.repeat(5000) });
    await expect(requestProvider({ ...options, baseUrl, maxAnswerBytes: 1000 }, 'GET', 'x')).rejects.toThrow(
      /an answer of 50\d\d bytes, more than the 1000 read/,
    );
    // Streamed with no length: refused once it runs past the cap, while the provider is still sending.
    let stillSending = true;
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write('x'.repeat(400)), 10);
      res.on('close', () => {
        clearInterval(timer);
        stillSending = false;
      });
    };
    const refused = requestProvider({ ...options, baseUrl, maxAnswerBytes: 1000 }, 'GET', 'x');
    await expect(refused).rejects.toBeInstanceOf(ProviderAnswerInvalid);
    await expect(refused).rejects.toThrow(/the answer runs past the 1000 bytes read/);
    for (let i = 0; i < 50 && stillSending; i++) await new Promise((r) => setTimeout(r, 20));
    expect(stillSending).toBe(false); // the connection was dropped, not read to its end
  });

  it('is ProviderUnavailable (retryable) for a hang past the deadline, a 5xx, or nothing listening', async () => {
    answer = () => undefined; // never answers
    await expect(requestProvider({ baseUrl, timeoutMs: 200 }, 'GET', 'slow')).rejects.toThrow(
      /did not answer \/api\/slow|did not answer slow/,
    );
    json(503, { message: 'maintenance' });
    const down = requestProvider({ ...options, baseUrl }, 'GET', 'x');
    await expect(down).rejects.toBeInstanceOf(ProviderUnavailable);
    await expect(down).rejects.not.toBeInstanceOf(ProviderAnswerInvalid);
    await expect(down).rejects.toMatchObject({ status: 503 });
    await expect(requestProvider({ ...options, baseUrl: 'http://127.0.0.1:9/' }, 'GET', 'x')).rejects.toBeInstanceOf(
      ProviderUnavailable,
    );
  });

  it('reads a 5xx JSON body when asked to (readServerErrors); a 5xx without JSON stays unavailable', async () => {
    json(500, { rt_cd: '1', msg_cd: 'EGW00123' });
    await expect(requestProvider({ ...options, baseUrl, readServerErrors: true }, 'GET', 'x')).resolves.toMatchObject({
      status: 500,
      body: { msg_cd: 'EGW00123' },
    });
    answer = (_req, res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<html>bad gateway</html>');
    await expect(requestProvider({ ...options, baseUrl, readServerErrors: true }, 'GET', 'x')).rejects.toMatchObject({
      status: 502,
    });
  });

  it('asks for an answer not compressed, and refuses one compressed all the same (never read as garbage)', async () => {
    json(200, { ok: true });
    await requestProvider({ ...options, baseUrl }, 'GET', 'x');
    expect(seen[0]!.headers['accept-encoding']).toBe('identity');
    answer = (_req, res) => {
      const body = gzipSync(JSON.stringify({ ok: true }));
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'content-length': body.length,
      });
      res.end(body);
    };
    const refused = requestProvider({ ...options, baseUrl }, 'GET', 'x');
    await expect(refused).rejects.toBeInstanceOf(ProviderAnswerInvalid);
    await expect(refused).rejects.toThrow(/encoded gzip, which was not asked for/);
  });

  it('cuts an answer whose body hangs after its headers at the deadline', async () => {
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"partial":');
    };
    await expect(requestProvider({ baseUrl, timeoutMs: 300 }, 'GET', 'x')).rejects.toBeInstanceOf(ProviderUnavailable);
  });

  it('refuses a 2xx that is not JSON as ProviderAnswerInvalid, keeping only its shape', async () => {
    answer = (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>login</html>');
    const refused = requestProvider({ ...options, baseUrl }, 'GET', 'x');
    await expect(refused).rejects.toBeInstanceOf(ProviderAnswerInvalid);
    await expect(refused).rejects.toMatchObject({ answer: '(18 characters, not JSON)' });
  });
});
