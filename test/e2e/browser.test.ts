import { randomUUID } from 'node:crypto';
import { Wallet } from 'ethers';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { resolveTemporalCli } from '../../dev/temporal-cli';
import { startTemporalDevServer, type RunningDevServer } from '../../dev/temporal-dev-server';
import { newOperatorToken, operatorTokenHash } from '../../api/operators/operators';
import { registrationWorkflowId } from '../../workflows/messages';
import { testDatabases } from '../helpers/databases';
import { freePort } from '../helpers/global-setup';
import { startTestStack, type TestStack } from '../helpers/stack';
import { TEST_PIN, call, registerUser, type RegisteredUser } from '../helpers/http';
import { encryptPin, ensurePin } from '../helpers/pin';
import { bearer, signSlot, ownerApproval } from '../helpers/wallet';
import { waitFor } from '../helpers/processes';

/** Debian's Chromium (`.ci/run` installs it); playwright-core drives it, its own browser downloads do not work here. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** What the pages' WebAuthn API offers (the tests compile without the DOM library). */
interface WebAuthnGlobals {
  navigator: {
    credentials: {
      create(options: unknown): Promise<{ toJSON(): unknown }>;
      get(options: unknown): Promise<{ toJSON(): unknown }>;
    };
  };
  PublicKeyCredential: {
    parseCreationOptionsFromJSON(options: unknown): unknown;
    parseRequestOptionsFromJSON(options: unknown): unknown;
  };
}
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * A real browser as the client: the Temporal UI (the dev server's, started with our codec endpoint) showing a
 * registration decoded for a signed-in operator, personal data redacted; and Chromium's virtual authenticator
 * registering a passkey against our options and approving a deployment with it.
 */
describe('in a real browser (headless Chromium)', () => {
  const operatorToken = newOperatorToken();
  let temporal: RunningDevServer;
  let stack: TestStack;
  let browser: Browser;
  let uiOrigin: string;
  let apiPort: number;

  beforeAll(async () => {
    const [temporalPort, uiPort] = [await freePort(), await freePort()];
    apiPort = await freePort();
    uiOrigin = `http://127.0.0.1:${uiPort}`;
    temporal = await startTemporalDevServer({
      cliPath: resolveTemporalCli({ build: false }),
      port: temporalPort,
      uiPort,
      uiCodecEndpoint: `http://127.0.0.1:${apiPort}/codec`,
    });
    stack = await startTestStack(testDatabases()[0]!, {
      chains: true,
      apiPort,
      env: {
        TEMPORAL_ADDRESS: temporal.address,
        OPERATOR_TOKENS: JSON.stringify({ alice: operatorTokenHash(operatorToken) }),
        CODEC_CORS_ORIGINS: uiOrigin,
        WEBAUTHN_RP_ID: 'localhost',
        WEBAUTHN_ORIGINS: `http://localhost:${apiPort}`,
      },
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await temporal?.stop();
  });

  /** Opens the registration's page in the UI, the UI's codec settings as an operator sets them once in their browser. */
  async function openRegistration(context: BrowserContext, user: RegisteredUser) {
    const page = await context.newPage();
    const decodeAnswers: Array<{ status: number; body: string }> = [];
    page.on('response', (response) => {
      if (response.url().endsWith('/codec/decode') && response.request().method() === 'POST') {
        const answer = { status: response.status(), body: '' };
        decodeAnswers.push(answer);
        response.text().then(
          (body) => {
            answer.body = body;
          },
          () => undefined,
        );
      }
    });
    await page.goto(uiOrigin);
    await page.evaluate((endpoint) => {
      localStorage.setItem('endpoint', JSON.stringify(endpoint));
      localStorage.setItem('includeCredentials', 'true');
      localStorage.setItem('overrideRemoteCodecConfiguration', 'true');
    }, `http://127.0.0.1:${apiPort}/codec`);
    await page.goto(`${uiOrigin}/namespaces/default/workflows/${registrationWorkflowId(user.regId)}`);
    return { page, decodeAnswers };
  }

  const decodedText = (answers: Array<{ body: string }>) =>
    answers
      .flatMap(({ body }) => {
        try {
          return (JSON.parse(body) as { payloads: Array<{ data?: string }> }).payloads.map((p) =>
            Buffer.from(p.data ?? '', 'base64').toString('utf8'),
          );
        } catch {
          return [];
        }
      })
      .join('\n');

  it("renders the API reference at /docs (Scalar, served from its package) with every request on the service's origin", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const requests: string[] = [];
    const errors: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(`${stack.apiUrl}/docs`);
    await page.getByRole('heading', { name: 'Wallet, identity and banking service' }).waitFor({ timeout: 60_000 });
    await page.getByText('Registration', { exact: true }).first().click();
    await page.getByText('Submit the initial wallet backup').first().waitFor({ timeout: 30_000 });
    // No CDN, fonts or telemetry: the page's CSP would refuse them, and none is even tried.
    expect(new Set(requests.map((url) => new URL(url).origin))).toEqual(new Set([new URL(stack.apiUrl).origin]));
    expect(requests.map((url) => new URL(url).pathname)).toEqual(
      expect.arrayContaining(['/docs', '/docs/scalar.js', '/openapi.json']),
    );
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows an operator the decoded input of a registration in the Temporal UI, without the personal data', async () => {
    const settings = await call(`${uiOrigin}/api/v1/settings`);
    expect(settings.body.Codec.Endpoint).toBe(`http://127.0.0.1:${apiPort}/codec`); // --ui-codec-endpoint reached the UI
    const user = await registerUser(stack);

    // Without signing in, the UI's calls are refused and it shows nothing decoded.
    const stranger = await browser.newContext();
    const refused = await openRegistration(stranger, user);
    await waitFor(() => refused.decodeAnswers.length > 0, 60_000, 'the UI asking the codec').catch(
      async (error: Error) => {
        await refused.page.screenshot({ path: '.data/browser-codec.png' });
        throw new Error(`${error.message}; page: ${(await refused.page.content()).slice(0, 3000)}`);
      },
    );
    expect(refused.decodeAnswers.every((a) => a.status === 401)).toBe(true);
    expect(await refused.page.content()).not.toContain('passResultWaitSeconds');
    await stranger.close();

    const context = await browser.newContext();
    const login = await context.newPage();
    await login.goto(`http://127.0.0.1:${apiPort}/codec/login`);
    await login.fill('#token', operatorToken);
    await login.click('button[type=submit]');
    await login.getByText('Signed in as alice').waitFor({ timeout: 30_000 });

    const { page, decodeAnswers } = await openRegistration(context, user);
    await page.getByText('passResultWaitSeconds').first().waitFor({ timeout: 60_000 }); // the decoded input, shown
    await waitFor(() => decodeAnswers.some((a) => a.status === 200 && a.body), 30_000, 'decoded payloads');
    await page.screenshot({ path: '.data/browser-codec-decoded.png' }); // what the operator sees, for a reader of a failure
    const content = await page.content();
    expect(content).toContain(user.regId);
    for (const personal of [user.person.name, user.person.phone, user.passToken])
      expect(content).not.toContain(personal);
    // Everything the browser received from the codec: decoded, and redacted.
    const received = decodedText(decodeAnswers);
    expect(received).toContain('passResultWaitSeconds');
    for (const personal of [
      user.person.name,
      user.person.phone,
      user.person.birthDate,
      user.passToken,
      user.backup.encryptedMnemonic,
    ])
      expect(received).not.toContain(personal);
    await context.close();
  });

  it("registers a passkey with Chromium's virtual authenticator and approves a deployment with it", async () => {
    const user = await registerUser(stack);
    const context = await browser.newContext();
    const page = await context.newPage();
    // A page of the relying party's origin (rp id localhost), as the app's web view would be.
    await page.goto(`http://localhost:${apiPort}/docs`);
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });

    const options = await call(`${stack.apiUrl}/v1/auth/passkeys/registration/options`, {
      method: 'POST',
      headers: bearer(user),
    });
    expect(options.status).toBe(200);
    const credential = await page.evaluate(async (publicKey) => {
      const web = globalThis as unknown as WebAuthnGlobals;
      const created = await web.navigator.credentials.create({
        publicKey: web.PublicKeyCredential.parseCreationOptionsFromJSON(publicKey),
      });
      return created.toJSON() as { id: string };
    }, options.body.publicKey);
    // The enrolment is approved by the user's PIN, bound to this registration challenge.
    await ensurePin(stack, user, TEST_PIN);
    const pin = await encryptPin(stack, TEST_PIN, {
      request: { action: 'passkey_enrol', challenge_id: options.body.challengeId },
    });
    const added = await call(`${stack.apiUrl}/v1/auth/passkeys`, {
      headers: bearer(user),
      json: { challengeId: options.body.challengeId, name: 'Chromium', credential, pin },
    });
    expect(added.status).toBe(201);
    expect((await call(`${stack.apiUrl}/v1/account/profile`, { headers: bearer(user) })).body.twoFactorMethods).toEqual(
      ['passkey'],
    );

    const owner = Wallet.createRandom();
    const prepared = await call(`${stack.apiUrl}/v1/wallet/networks/ETHEREUM/deploy/prepare`, {
      headers: bearer(user),
      json: { ownerAddress: owner.address, ...(await ownerApproval(stack, user, owner.address)) },
    });
    const [onChain, twoFactor] = prepared.body.items;
    expect(twoFactor.parameter.options.allowCredentials).toEqual([expect.objectContaining({ id: credential.id })]);
    const assertion = await page.evaluate(async (publicKey) => {
      const web = globalThis as unknown as WebAuthnGlobals;
      const got = await web.navigator.credentials.get({
        publicKey: web.PublicKeyCredential.parseRequestOptionsFromJSON(publicKey),
      });
      return got.toJSON();
    }, twoFactor.parameter.options);
    const accepted = await call(`${stack.apiUrl}/v1/wallet/networks/ETHEREUM/deploy`, {
      headers: { ...bearer(user), 'idempotency-key': randomUUID() },
      json: {
        signing: {
          items: [
            signSlot(onChain, owner),
            { id: twoFactor.id, parameter: { authMethod: 'passkey' }, signature: { authResponse: assertion } },
          ],
        },
      },
    });
    if (accepted.status !== 202)
      throw new Error(`deploy: ${accepted.status} ${JSON.stringify(accepted.body)} for ${JSON.stringify(assertion)}`);
    await waitFor(
      async () =>
        (await call(`${stack.apiUrl}/v1/wallet/deploy-jobs/${onChain.id}`, { headers: bearer(user) })).body.status ===
        'completed',
      60_000,
      'deployment',
    );
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]!.signCount).toBeGreaterThanOrEqual(1); // the authenticator signed once for the approval
    await context.close();
  });
});
