import { Client } from 'pg';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, registerUser, type RegisteredUser } from '../helpers/http';
import { waitFor } from '../helpers/processes';

const postgres = testDatabases().find((kind) => kind.name === 'postgresql');

/** Short, so the drill is quick; the heartbeat's worst case (two periods) stays well under the rows' maximum age. */
const HEARTBEAT_SECONDS = 3;
const MAX_AGE_SECONDS = 15;
/** Time for the answer that follows the bound (a request, a timer firing late on a busy machine). */
const SLACK_MS = 1_500;

/**
 * The api process's session cache serves a user's session from memory only while it knows of every change. Its
 * LISTEN connection is silenced here as a NAT or load balancer that forgot the flow silences it (open, no byte
 * through, no reset) while the API's own queries go on: the revoked device and the suspended user are served from
 * memory at first, and refused within the bound. Needs PostgreSQL (TEST_DATABASE_URL): SQLite keeps no sessions.
 */
(postgres ? describe : describe.skip)('the session cache when its LISTEN connection dies silently', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack(postgres!, {
      listenProxy: true,
      env: {
        SESSION_CACHE_HEARTBEAT_SECONDS: String(HEARTBEAT_SECONDS),
        SESSION_CACHE_MAX_AGE_SECONDS: String(MAX_AGE_SECONDS),
      },
    });
  });
  afterAll(async () => stack?.stop());

  const profile = (user: RegisteredUser) =>
    call(`${stack.apiUrl}/v1/account/profile`, { headers: { authorization: `Bearer ${user.accessToken}` } });

  /** Asks for the profile until it is refused, failing once `deadline` (performance.now()) has passed. */
  async function refusal(user: RegisteredUser, deadline: number) {
    for (;;) {
      const answer = await profile(user);
      if (answer.status !== 200) return answer;
      if (performance.now() > deadline) throw new Error('still served from memory after the bound');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  const listening = () => waitFor(() => stack.sessions!.live, 10_000, 'the session cache listening');

  it('refuses a device signed out while the LISTEN connection is black-holed within two heartbeats, then listens again', async () => {
    await listening();
    const person = await registerUser(stack);
    expect((await profile(person)).status).toBe(200);
    expect((await profile(person)).status).toBe(200); // served from the cache

    stack.listenProxy!.blackHole();
    const silenced = performance.now();
    const signedOut = await call(`${stack.apiUrl}/v1/auth/sign-out`, {
      method: 'POST',
      headers: { authorization: `Bearer ${person.accessToken}` },
    });
    expect(signedOut.status).toBe(200);
    // The trigger's notification is lost with the connection: the process still serves the session it keeps.
    expect((await profile(person)).status).toBe(200);

    const refused = await refusal(person, silenced + 2 * HEARTBEAT_SECONDS * 1000 + SLACK_MS);
    expect([refused.status, refused.body.type]).toEqual([401, '/problems/device-signed-out']);
    // Well before the rows' maximum age: the heartbeat found the silence.
    expect(performance.now() - silenced).toBeLessThan(MAX_AGE_SECONDS * 1000);
    // A new LISTEN connection (the proxy carries new ones) takes over.
    await listening();
  }, 60_000);

  it('refuses a user suspended by a write the database does not tell (triggers disabled) once the kept row is older than SESSION_CACHE_MAX_AGE_SECONDS', async () => {
    // The heartbeat goes on answering: only the rows' age bounds this change.
    await listening();
    const person = await registerUser(stack);
    const read = performance.now();
    expect((await profile(person)).status).toBe(200);
    expect((await profile(person)).status).toBe(200);

    const db = new Client({ connectionString: stack.config.DATABASE_URL });
    await db.connect();
    try {
      await db.query('begin');
      await db.query('alter table users disable trigger users_session_changed');
      await db.query("update users set status = 'suspended' where id = $1", [person.userId]);
      await db.query('alter table users enable trigger users_session_changed');
      await db.query('commit');
    } finally {
      await db.end();
    }
    expect((await profile(person)).status).toBe(200); // nothing was told: served from memory

    const refused = await refusal(person, read + MAX_AGE_SECONDS * 1000 + SLACK_MS);
    expect([refused.status, refused.body.type]).toEqual([401, '/problems/invalid-token']);
  }, 60_000);
});
