import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, registerUser } from '../helpers/http';

describe('logs', () => {
  const lines: string[] = [];
  let stack: TestStack;
  beforeAll(async () => { stack = await startTestStack(testDatabases()[0]!, { logSink: lines }); });
  afterAll(async () => { await stack?.stop(); });

  it('record every request with its id, status and route, and no credential or personal data', async () => {
    const user = await registerUser(stack);
    const profile = await call(`${stack.apiUrl}/v1/account/profile`, { headers: { authorization: `Bearer ${user.accessToken}`, 'x-request-id': 'trace-me-12345' } });
    expect(profile.headers.get('x-request-id')).toBe('trace-me-12345');
    const log = lines.join('');
    expect(log).toContain('"requestId":"trace-me-12345"');
    expect(log).toContain('"route":"/v1/account/register/:regId/ekyc"');
    const secrets = [user.passToken, user.accessToken, user.refreshToken, user.person.name, user.person.phone, user.regId, user.deviceId];
    for (const secret of secrets) expect(log).not.toContain(secret);
    expect(lines.length).toBeGreaterThanOrEqual(6);
  });
});
