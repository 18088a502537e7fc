/**
 * An app's whole first session, on the typed client, against `npm start`'s stack: a person verifies their identity
 * (in the sandbox's NICE window), registers (eKYC with an ID card the sandbox OCR reads, the wallet backup), gets
 * tokens, sets a PIN, deploys a smart account, funds it from the local faucet and sends 0.01 ETH approved by the PIN.
 *
 *   npx tsx clients/typescript/examples/quickstart.ts      # in this repository
 *   node quickstart.ts                                      # in an app of its own: Node 24 runs it as it is
 *
 * It imports only the client and ethers, so it runs outside the repository too: copy it into a folder whose
 * package.json says `"type": "module"`, `npm install` the client's tarball (`npm pack` in clients/typescript) and
 * ethers, and run it with Node 24 (or 22.18+), which strips the types of a .ts file itself (it uses no TypeScript
 * syntax that needs compiling: no enum, namespace or parameter property).
 *
 * API_URL, SANDBOX_URL and FAUCET_URL name the services if they moved (defaults: npm start's). Only the sandbox steps
 * (the person in NICE's window, the card image, the faucet) are local stand-ins; in production the app opens
 * `window` in a web view or the system browser, the person verifies with NICE, and the app photographs a real card.
 */
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { Wallet } from 'ethers';
import { createWalletClient, idempotencyKey, poll, signSlot, withRetries } from '@wallet-service/client';

const API_URL = process.env.API_URL ?? 'http://127.0.0.1:3000';
const SANDBOX_URL = process.env.SANDBOX_URL ?? 'http://127.0.0.1:4010';
const FAUCET_URL = process.env.FAUCET_URL ?? 'http://127.0.0.1:8547/faucet';

/** The answer's data, or a stop that says what the service answered. */
function must<T>(step: string, answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.data === undefined) throw new Error(`${step}: ${answer.response.status} ${JSON.stringify(answer.error)}`);
  return answer.data;
}

async function main(): Promise<void> {
  // 1. The service opens an identity verification in NICE's window (IDENTITY_PROVIDER=nice, as npm start runs it); the
  // person verifies in the window (the sandbox's, filled in here as the phone's browser shows it to them) and NICE
  // brings the browser back to the service, which takes the result and gives that browser a code; the app exchanges
  // the code, with the verifier of its PKCE challenge, for the pass token. One person, one account: a fresh resident
  // number each run.
  const birthDate = '1990-01-15';
  // The 7th digit is the century and sex (1 or 2: born in the 1900s), the six after it free.
  const residentNumber = `900115${1 + randomInt(2)}${String(randomInt(1_000_000)).padStart(6, '0')}`;
  const person = { name: '홍길동', phone: '01012345678', birthDate, residentNumber };
  const api = createWalletClient({ baseUrl: API_URL });
  const codeVerifier = randomBytes(32).toString('base64url');
  const codeChallenge = createHash('sha256').update(codeVerifier).digest('base64url');
  const { passRequestId, window } = must(
    'verification',
    await api.POST('/v1/auth/pass/requests', { body: { codeChallenge, codeChallengeMethod: 'S256' } }),
  );
  const shown = await (await fetch(window.url, { method: 'POST', body: new URLSearchParams(window.fields) })).text();
  const session = /name="session" value="([0-9a-f]+)"/.exec(shown)?.[1] ?? '';
  const verified = await fetch(new URL('/CheckPlusSafeModel/sandbox/verify', window.url), {
    method: 'POST',
    redirect: 'manual',
    body: new URLSearchParams({ session, ...person }),
  });
  const returned = await (await fetch(verified.headers.get('location') ?? window.url)).text();
  const code = /id="pass-code" hidden>([A-Za-z0-9_-]+)</.exec(returned)?.[1] ?? '';
  const { passToken } = must(
    'pass token',
    await api.POST('/v1/auth/pass/requests/{passRequestId}/token', {
      params: { path: { passRequestId } },
      body: { code, codeVerifier },
    }),
  );

  // 2. Registration: start, eKYC (multipart, the card image), the wallet backup (encrypted by the app), tokens.
  const deviceId = crypto.randomUUID();
  const started = must(
    'register',
    await api.POST('/v1/account/register', {
      params: { header: { 'idempotency-key': idempotencyKey(), 'x-device-id': deviceId } },
      body: { passToken },
    }),
  );
  const regId = started.regId;
  // The card's photo: the sandbox makes one its OCR reads (it reads the card's text from the PNG, not its pixels).
  const cardQuery = new URLSearchParams({
    name: person.name,
    birthDate,
    idNumber: residentNumber,
    issueDate: '2020-03-02',
  });
  const cardImage = await fetch(`${SANDBOX_URL}/clova/_id-card.png?${cardQuery}`);
  if (!cardImage.ok) throw new Error(`card image: ${cardImage.status} ${await cardImage.text()}`);
  const card = new FormData();
  card.set('idCardType', 'resident_id');
  card.set('idCardImage', new Blob([await cardImage.arrayBuffer()], { type: 'image/png' }), 'card.png');
  const ekyc = must(
    'eKYC',
    await api.POST('/v1/account/register/{regId}/ekyc', {
      params: { path: { regId }, header: { 'idempotency-key': idempotencyKey(), 'x-pass-token': passToken } },
      body: card as never,
      bodySerializer: (form) => form, // multipart/form-data, sent as it is
    }),
  );
  console.log('eKYC:', ekyc.ocrResult.verified ? 'verified' : 'not verified', '-> step', ekyc.step);
  must(
    'backup',
    await api.POST('/v1/account/register/{regId}/backup', {
      params: { path: { regId }, header: { 'idempotency-key': idempotencyKey(), 'x-pass-token': passToken } },
      body: {
        encryptedMnemonic: Buffer.from('the app encrypts the mnemonic').toString('base64'),
        encryptedDerivationPaths: Buffer.from("m/44'/60'/0'/0/0").toString('base64'),
        encryptionMethod: 'AES-256-GCM',
      },
    }),
  );
  // The PIN, while the registration's pass token is the only credential (no access token exists yet to steal).
  must(
    'PIN',
    await api.POST('/v1/account/register/{regId}/pin', {
      params: { path: { regId }, header: { 'x-pass-token': passToken } },
      body: { pin: await api.pin.encrypt('482915') },
    }),
  );
  const tokens = must(
    'token',
    await api.POST('/v1/auth/token', {
      params: { header: { 'x-device-id': deviceId, 'x-pass-token': passToken } },
      body: { grantType: 'registration', regId },
    }),
  );

  // 3. The signed-in app: every call carries the access token.
  const app = createWalletClient({ baseUrl: API_URL, accessToken: tokens.accessToken });
  console.log('user:', must('profile', await app.GET('/v1/account/profile')).userId);

  // 4. A smart account on ETHEREUM: the owner key (kept by the app) signs the prepared slot; the deploy is polled.
  // The first prepare names the owner key of every account, so the PIN approves that key.
  const owner = Wallet.createRandom();
  const prepared = must(
    'deploy prepare',
    await app.POST('/v1/wallet/networks/{networkId}/deploy/prepare', {
      params: { path: { networkId: 'ETHEREUM' } },
      body: { ownerAddress: owner.address, pin: await app.pin.ownerKey('482915', owner.address) },
    }),
  );
  const slot = prepared.items[0]!;
  const deployKey = idempotencyKey(); // one logical request, the same key on each retry
  must(
    'deploy',
    await withRetries(() =>
      app.POST('/v1/wallet/networks/{networkId}/deploy', {
        params: { path: { networkId: 'ETHEREUM' }, header: { 'idempotency-key': deployKey } },
        body: { signing: { items: [signSlot(slot, owner)] } },
      }),
    ),
  );
  await poll(
    () => app.GET('/v1/wallet/deploy-jobs/{jobId}', { params: { path: { jobId: slot.id } } }),
    (job) => job.status === 'completed',
    { what: 'deployment' },
  );
  const account = (slot.parameter.domain as { accountAddress: string }).accountAddress;
  console.log('account:', account);
  const funded = await fetch(FAUCET_URL, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ network: 'ETHEREUM', address: account }),
  });
  if (!funded.ok) throw new Error(`faucet: ${funded.status} ${await funded.text()}`);

  // 5. A transfer: the PIN approves exactly these fields and this Idempotency-Key; then it is polled to inclusion.
  const fields = {
    to_address: '0x000000000000000000000000000000000000dEaD',
    network: 'ETHEREUM' as const,
    token: 'ETH',
    amount: '0.01',
  };
  const key = idempotencyKey();
  const pin = await app.pin.forTransfer('482915', fields, key);
  const sent = must(
    'transfer',
    await withRetries(() =>
      app.POST('/api/v1/transfer/crypto/execute', {
        params: { header: { 'idempotency-key': key } },
        body: { ...fields, pin },
      }),
    ),
  );
  const transferId = sent.data.transfer_id;
  const done = await poll(
    () => app.GET('/api/v1/transfer/crypto/{transferId}', { params: { path: { transferId } } }),
    (answer) => ['confirmed', 'finalized', 'failed'].includes(answer.data.status),
    { what: `transfer ${transferId}` },
  );
  console.log(`transfer ${transferId}: ${done.data.status} ${done.data.amount} in ${done.data.tx_hash}`);
  if (done.data.status === 'failed') process.exit(1);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
