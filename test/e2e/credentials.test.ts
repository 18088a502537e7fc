import { randomUUID } from 'node:crypto';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import {
  call,
  cardOf,
  idCardForm,
  newPerson,
  registerUser,
  residentNumberFor,
  type RegisteredUser,
} from '../helpers/http';
import { makeIdCardPng } from '../../sandbox/id-card-image';
import { bearer } from '../helpers/wallet';
import { verifyCredential, WALLET_CONTEXT_URL } from '../helpers/credentials';
import { connectBankAccount, openBankAccount, callApi } from '../helpers/bank';
import { waitFor } from '../helpers/processes';
import { newOperatorToken, operatorTokenHash } from '../../api/operators/operators';
import {
  CredentialStatusListEntity,
  EventEntity,
  IdempotencyRecordEntity,
  UserEntity,
  VerifiableCredentialEntity,
} from '../../db/entities';
import { closeAccountBody, encryptPin, ensurePin, kycRenewalRequest } from '../helpers/pin';

const CLOSING_PIN = '482913';

describe.each(testDatabases())('verifiable credentials on %s', (database) => {
  let stack: TestStack;
  let user: RegisteredUser;
  const operatorToken = newOperatorToken();
  const asOperator = { authorization: `Bearer ${operatorToken}` };
  beforeAll(async () => {
    stack = await startTestStack(database, {
      env: { OPERATOR_TOKENS: JSON.stringify({ compliance: operatorTokenHash(operatorToken) }) },
    });
    user = await registerUser(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const verify = (credential: object) => verifyCredential(stack.apiUrl, credential);
  const list = (u = user) => call(`${stack.apiUrl}/v1/did/vcs`, { headers: bearer(u) });
  const get = (vcId: string, u = user) => call(`${stack.apiUrl}/v1/did/vcs/${vcId}`, { headers: bearer(u) });
  const basicInfo = async (body: object) => {
    const answer = await call(`${stack.apiUrl}/api/v1/kyc/basic-info`, { headers: bearer(user), json: body });
    return { status: answer.status, body: answer.body.data }; // /api/v1 answers {status, data}
  };

  it('issues a KYC credential at registration, signed by the issuer did:key and verified independently', async () => {
    const { body } = await list();
    expect(body.items).toHaveLength(1);
    expect(body.items[0].type).toBe('KycCredential');
    const { status, body: vc } = await get(body.items[0].vcId);
    expect(status).toBe(200);
    expect(vc).toMatchObject({
      '@context': ['https://www.w3.org/ns/credentials/v2', WALLET_CONTEXT_URL],
      id: `urn:uuid:${body.items[0].vcId.slice(3)}`,
      type: ['VerifiableCredential', 'KycCredential'],
      issuer: { id: expect.stringMatching(/^did:key:z6Mk/), name: 'Wallet' },
      credentialSubject: { name: user.person.name, birthDate: user.person.birthDate, kycLevel: 'identity-verified' },
      proof: { type: 'DataIntegrityProof', cryptosuite: 'eddsa-rdfc-2022', proofPurpose: 'assertionMethod' },
    });
    expect(vc.proof.verificationMethod.startsWith(`${vc.issuer.id}#`)).toBe(true);
    expect(Date.parse(vc.validUntil)).toBeGreaterThan(Date.parse(vc.validFrom));
    // Before deployment it names no holder (no credentialSubject.id): see did.test.ts for the one that does.
    expect(vc.credentialSubject.id).toBeUndefined();
    expect(body.items[0]).toMatchObject({
      status: 'active',
      holder: null,
      revokedAt: null,
      statusListCredential: vc.credentialStatus.statusListCredential,
    });
    expect(vc.credentialStatus).toEqual({
      id: `${vc.credentialStatus.statusListCredential}#${vc.credentialStatus.statusListIndex}`,
      type: 'BitstringStatusListEntry',
      statusPurpose: 'revocation',
      statusListIndex: expect.stringMatching(/^\d+$/),
      statusListCredential: expect.stringMatching(new RegExp(`^${stack.apiUrl}/v1/credentials/status/\\d+$`)),
    });
    await expect(verify(vc)).resolves.toEqual({
      verified: true,
      errors: [],
      status: { checked: true, revoked: false, listUrl: vc.credentialStatus.statusListCredential },
    });

    // Any change to what was signed breaks the proof.
    const tampered = { ...vc, credentialSubject: { ...vc.credentialSubject, kycLevel: 'enhanced' } };
    expect((await verify(tampered)).verified).toBe(false);
    expect((await verify({ ...vc, validUntil: '2099-01-01T00:00:00Z' })).verified).toBe(false);
  });

  it('issues a credential per distinct basic-info submission, never twice for the same details, and revokes the one superseded', async () => {
    const details = { full_name: user.person.name, eng_surname: 'Hong', eng_name: 'Gildong', nationality: 'KR' };
    const first = await basicInfo(details);
    expect(first.status).toBe(200);
    expect(first.body.vcId).toMatch(/^vc_/);
    expect((await basicInfo(details)).body.vcId).toBe(first.body.vcId);
    const firstVc = (await get(first.body.vcId)).body;
    await expect(verify(firstVc)).resolves.toMatchObject({ verified: true, status: { revoked: false } });

    const corrected = await basicInfo({ ...details, eng_name: 'Gil-dong' });
    expect(corrected.body.vcId).not.toBe(first.body.vcId);
    const vc = (await get(corrected.body.vcId)).body;
    expect(vc.type).toEqual(['VerifiableCredential', 'BasicInfoCredential']);
    expect(vc.credentialSubject).toEqual({
      name: user.person.name,
      familyName: 'Hong',
      givenName: 'Gil-dong',
      nationality: 'KR',
    });
    // The name and nationality were verified by the identity provider at registration; the English names only asserted.
    expect(vc.evidence).toEqual([
      { type: ['IdentityProviderEvidence'], checkedBy: 'mobile-carrier-pass', claims: ['name', 'nationality'] },
      { type: ['SelfAssertedEvidence'], claims: ['familyName', 'givenName'] },
    ]);
    await expect(verify(vc)).resolves.toMatchObject({ verified: true, status: { revoked: false } });

    // The superseded credential is revoked: the same signed document now fails its status check.
    const superseded = await verify(firstVc);
    expect(superseded).toMatchObject({ verified: false, status: { checked: true, revoked: true } });
    expect(superseded.errors.join(' ')).toContain('revoked');
    const items = (await list()).body.items as Array<{
      vcId: string;
      type: string;
      status: string;
      revocationReason: string | null;
      revokedAt: string | null;
    }>;
    expect(items.find((i) => i.vcId === first.body.vcId)).toMatchObject({
      status: 'revoked',
      revocationReason: 'superseded',
      revokedAt: expect.any(String),
    });
    expect(items.find((i) => i.vcId === corrected.body.vcId)).toMatchObject({ status: 'active', revokedAt: null });

    // The first details again: attested anew (a revoked credential is never handed out again).
    const again = await basicInfo(details);
    expect([first.body.vcId, corrected.body.vcId]).not.toContain(again.body.vcId);
    await expect(verify((await get(again.body.vcId)).body)).resolves.toMatchObject({ verified: true });
    expect((await verify(vc)).status!.revoked).toBe(true);
    const statuses = (await list()).body.items
      .map((i: { type: string; status: string }) => `${i.type}:${i.status}`)
      .sort();
    expect(statuses).toEqual([
      'BasicInfoCredential:active',
      'BasicInfoCredential:revoked',
      'BasicInfoCredential:revoked',
      'KycCredential:active',
    ]);
  });

  it('signs no basic-info credential stating another name or nationality than the identity verified at registration', async () => {
    const someone = await registerUser(stack);
    const submit = async (body: object) => {
      const answer = await call(`${stack.apiUrl}/api/v1/kyc/basic-info`, { headers: bearer(someone), json: body });
      return { status: answer.status, body: answer.body.data ?? answer.body.error };
    };
    const details = { full_name: someone.person.name, eng_surname: 'Kim', eng_name: 'Minsu', nationality: 'KR' };
    const impostor = await submit({ ...details, full_name: user.person.name });
    expect([impostor.status, impostor.body.type]).toEqual([422, '/problems/name-mismatch']);
    const foreign = await submit({ ...details, nationality: 'US' });
    expect([foreign.status, foreign.body.type]).toEqual([422, '/problems/nationality-mismatch']);
    expect((await list(someone)).body.items.map((i: { type: string }) => i.type)).toEqual(['KycCredential']);
    // Spacing and Unicode normalisation do not matter; the verified name itself is accepted.
    const spaced = await submit({
      ...details,
      full_name: ` ${someone.person.name.normalize('NFD').split('').join('')} `,
    });
    expect(spaced.status).toBe(200);
  });

  it('serves the issuer-signed status list publicly, cacheable, and nothing else under its path', async () => {
    const [kyc] = (await list()).body.items as Array<{ statusListCredential: string }>;
    const answer = await call(kyc!.statusListCredential);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('public, max-age=60');
    expect(answer.body).toMatchObject({
      '@context': ['https://www.w3.org/ns/credentials/v2'],
      id: kyc!.statusListCredential,
      type: ['VerifiableCredential', 'BitstringStatusListCredential'],
      credentialSubject: {
        id: `${kyc!.statusListCredential}#list`,
        type: 'BitstringStatusList',
        statusPurpose: 'revocation',
        encodedList: expect.stringMatching(/^u[A-Za-z0-9_-]+$/),
        ttl: 60_000,
      },
      proof: { cryptosuite: 'eddsa-rdfc-2022' },
    });
    // The list is itself a credential of the same issuer, verified on its own.
    await expect(verify(answer.body)).resolves.toMatchObject({ verified: true });
    const tampered = {
      ...answer.body,
      credentialSubject: {
        ...answer.body.credentialSubject,
        encodedList: 'uH4sIAAAAAAAAA-3BMQEAAADCoPVPbQwfoAAAAAAAAAAAAAAAAAAAAIC3AYbSVKsAQAAA',
      },
    };
    expect((await verify(tampered)).verified).toBe(false);
    expect((await call(`${stack.apiUrl}/v1/credentials/status/999999`)).status).toBe(404);
    expect((await call(`${stack.apiUrl}/v1/credentials/status/0`)).status).toBe(400);
    expect((await call(`${stack.apiUrl}/v1/credentials/status/abc`)).status).toBe(400);
  });

  it('lets an operator revoke a credential over HTTP: its status check fails, others on the list still pass, credential.revoked is told once', async () => {
    const holder = await registerUser(stack);
    const bystander = await registerUser(stack);
    const [target] = (await list(holder)).body.items;
    const [other] = (await list(bystander)).body.items;
    const targetVc = (await get(target.vcId, holder)).body;
    const otherVc = (await get(other.vcId, bystander)).body;
    expect(targetVc.credentialStatus.statusListCredential).toBe(otherVc.credentialStatus.statusListCredential);
    await expect(verify(targetVc)).resolves.toMatchObject({ verified: true });

    const revoke = (vcId: string, body: object, headers: Record<string, string> = asOperator) =>
      call(`${stack.apiUrl}/v1/credentials/${vcId}/revoke`, { headers, json: body });
    // Not a user's to do, nor anyone's without a credential; malformed requests are refused before anything runs.
    expect((await revoke(target.vcId, { reason: 'fraud report' }, bearer(holder))).status).toBe(401);
    expect((await revoke(target.vcId, { reason: 'fraud report' }, {})).status).toBe(401);
    expect((await revoke(target.vcId, {})).status).toBe(400);
    expect((await revoke(target.vcId, { reason: '   ' })).status).toBe(400);
    expect((await revoke(target.vcId, { reason: 'fraud report', extra: 1 })).status).toBe(400);
    expect((await revoke('vc_not-an-id', { reason: 'fraud report' })).status).toBe(400);
    expect((await revoke(`vc_${randomUUID()}`, { reason: 'fraud report' })).status).toBe(404);
    await expect(verify(targetVc)).resolves.toMatchObject({ verified: true });

    const revoked = await revoke(target.vcId, { reason: 'fraud report' });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({
      vcId: target.vcId,
      status: 'revoked',
      revokedAt: expect.any(String),
      reason: 'operator: fraud report',
    });
    expect(await verify(targetVc)).toMatchObject({ verified: false, status: { checked: true, revoked: true } });
    await expect(verify(otherVc)).resolves.toMatchObject({ verified: true, status: { revoked: false } });
    expect((await list(holder)).body.items[0]).toMatchObject({
      status: 'revoked',
      revocationReason: 'operator: fraud report',
    });

    // Again: the same revocation, nothing more.
    const again = await revoke(target.vcId, { reason: 'another reason' });
    expect(again.body).toEqual(revoked.body);
    const events = (
      await call(`${stack.apiUrl}/v1/events?type=credential.revoked&resourceId=${target.vcId}`, { headers: asOperator })
    ).body.items;
    expect(events).toHaveLength(1);
    expect(events[0].data).toEqual({
      vcId: target.vcId,
      credentialType: 'KycCredential',
      reason: 'operator: fraud report',
      statusListCredential: targetVc.credentialStatus.statusListCredential,
      statusListIndex: targetVc.credentialStatus.statusListIndex,
    });
  });

  it('revokes concurrently without losing a bit: every credential revoked at once fails its status check', async () => {
    const users = await Promise.all([1, 2, 3, 4].map(() => registerUser(stack)));
    const credentials = await Promise.all(
      users.map(async (u) => (await get((await list(u)).body.items[0].vcId, u)).body),
    );
    const answers = await Promise.all(
      credentials.map((vc) =>
        call(`${stack.apiUrl}/v1/credentials/vc_${vc.id.slice('urn:uuid:'.length)}/revoke`, {
          headers: asOperator,
          json: { reason: 'batch review' },
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    for (const vc of credentials) expect((await verify(vc)).status).toMatchObject({ revoked: true });
    const [list1] = await stack.orm.em.fork().find(CredentialStatusListEntity, {}, { orderBy: { id: 'asc' } });
    expect(list1!.allocated).toBeGreaterThanOrEqual(credentials.length);
  });

  it('closes an account over HTTP: refused while the service holds won for the user; once closed, tokens stop and credentials are revoked', async () => {
    const saver = await registerUser(stack, undefined, { pin: CLOSING_PIN });
    const bank = await openBankAccount(stack, saver.person, 100_000);
    await connectBankAccount(stack, saver, bank);
    const charged = await callApi(stack, '/api/v1/charge/execute', saver, {
      json: { source: 'KB국민은행', amount: '5000', currency: 'KRW' },
      key: randomUUID(),
    });
    expect(charged.status).toBe(202);
    await waitFor(
      async () => (await callApi(stack, `/api/v1/charge/${charged.body.charge_id}`, saver)).body.status === 'completed',
      60_000,
      'charge',
    );
    const close = async (u: RegisteredUser, body?: object, headers: Record<string, string> = {}) =>
      call(`${stack.apiUrl}/v1/account/close`, {
        headers: { ...bearer(u), ...headers },
        json: body ?? (await closeAccountBody(stack, CLOSING_PIN)),
      });
    await ensurePin(stack, saver, CLOSING_PIN);
    const refused = await close(saver);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      type: expect.stringContaining('account-not-closable'),
      blockers: [{ reason: 'won-balance', detail: expect.stringContaining('5000 KRW') }],
    });
    expect((await call(`${stack.apiUrl}/v1/account/profile`, { headers: bearer(saver) })).body.status).toBe('active');
    expect((await list(saver)).body.items[0].status).toBe('active');

    const leaving = await registerUser(stack, undefined, { pin: CLOSING_PIN });
    await ensurePin(stack, leaving, CLOSING_PIN);
    const kyc = (await get((await list(leaving)).body.items[0].vcId, leaving)).body;
    expect((await close(leaving, {})).status).toBe(400);
    expect((await close(leaving, { confirm: 'close' })).status).toBe(400);
    expect((await call(`${stack.apiUrl}/v1/account/close`, { json: { confirm: 'CLOSE' } })).status).toBe(401);
    // A stolen access token alone closes nothing: the PIN bound to the closure (or a passkey) is needed.
    const tokenOnly = await close(leaving, { confirm: 'CLOSE' });
    expect([tokenOnly.status, tokenOnly.body.type]).toEqual([422, '/problems/step-up-required']);
    const forOther = await close(leaving, {
      confirm: 'CLOSE',
      pin: await encryptPin(stack, CLOSING_PIN, { request: { action: 'pin_change' } }),
    });
    expect([forOther.status, forOther.body.type]).toEqual([422, '/problems/pin-not-for-this-request']);
    const wrongPin = await close(leaving, {
      confirm: 'CLOSE',
      pin: await encryptPin(stack, '864213', { request: { action: 'account_close' } }),
    });
    expect([wrongPin.status, wrongPin.body.type]).toEqual([422, '/problems/wrong-pin']);
    expect((await call(`${stack.apiUrl}/v1/account/profile`, { headers: bearer(leaving) })).body.status).toBe('active');
    expect(await stack.orm.em.fork().count(EventEntity, { userId: leaving.userId, type: 'account.closed' })).toBe(0);
    // Sent twice at once (a double tap, a retry): one closure (account-closure-<userId>), the same answer or, for a
    // request that arrives after it, 401: the token stopped working.
    // (Each carries its own PIN approval: one approval approves one request.)
    const answers = await Promise.all([close(leaving), close(leaving)]);
    const closed = answers.find((a) => a.status === 200 && a.body.revokedCredentials.length)!;
    const twin = answers[answers.indexOf(closed) === 0 ? 1 : 0]!;
    expect(closed.body).toEqual({
      status: 'closed',
      closedAt: expect.any(String),
      revokedCredentials: [kyc.id.replace('urn:uuid:', 'vc_')],
    });
    // The twin shares the closure (its answer, or the closed account's answer) or arrives after it (401).
    if (twin.status === 200) expect(twin.body.closedAt).toBe(closed.body.closedAt);
    else expect(twin.status).toBe(401);
    expect((await close(leaving)).status).toBe(401);
    expect((await call(`${stack.apiUrl}/v1/account/profile`, { headers: bearer(leaving) })).status).toBe(401);
    expect(
      (
        await call(`${stack.apiUrl}/v1/auth/token`, {
          headers: { 'x-device-id': leaving.deviceId },
          json: { grantType: 'refresh_token', refreshToken: leaving.refreshToken },
        })
      ).status,
    ).toBe(401);
    await expect(verify(kyc)).resolves.toMatchObject({ verified: false, status: { revoked: true } });
    const closedEvents = (
      await call(`${stack.apiUrl}/v1/events?userId=${leaving.userId}&type=account.closed,credential.revoked`, {
        headers: asOperator,
      })
    ).body.items;
    expect(
      closedEvents.map((e: { type: string; data: { reason?: string } }) => [e.type, e.data.reason ?? null]),
    ).toEqual([
      ['credential.revoked', 'account-closed'],
      ['account.closed', null],
    ]);
  });

  it('renews KYC with a new ID-card image: a match issues a new KycCredential and revokes the old one; a mismatch changes nothing', async () => {
    const u = await registerUser(stack);
    const [oldKyc] = (await list(u)).body.items;
    const oldVc = (await get(oldKyc.vcId, u)).body;
    /** A renewal as the app sends it: the form carries the PIN approving it (kept on the form, so a retry is the same). */
    const renew = async (
      form: FormData | undefined,
      key: string | undefined = randomUUID(),
      headers: Record<string, string> = bearer(u),
    ) => {
      if (form && !form.has('pin'))
        form.set('pin', await encryptPin(stack, u.pin!, { request: await kycRenewalRequest(form) }));
      return call(`${stack.apiUrl}/v1/account/kyc/renew`, {
        headers: { ...headers, ...(key ? { 'idempotency-key': key } : {}) },
        form,
      });
    };

    // The access token alone renews nothing (a renewal can put a card on file that sign-ins are compared with).
    const tokenOnly = await call(`${stack.apiUrl}/v1/account/kyc/renew`, {
      headers: { ...bearer(u), 'idempotency-key': randomUUID() },
      form: idCardForm(u.person),
    });
    expect([tokenOnly.status, tokenOnly.body.type]).toEqual([422, '/problems/step-up-required']);
    // An approval names its card: one seen in transit, raced with another image (or the same image as another type),
    // renews nothing. Before, it named only {"action":"kyc_renew"} and approved whatever card came with it.
    const approved = idCardForm(u.person);
    const intercepted = await encryptPin(stack, u.pin!, { request: await kycRenewalRequest(approved) });
    const otherCard = idCardForm(newPerson());
    otherCard.set('pin', intercepted);
    const asPassport = idCardForm(u.person, 'passport');
    asPassport.set('pin', await encryptPin(stack, u.pin!, { request: await kycRenewalRequest(approved) }));
    const raced = [await renew(otherCard), await renew(asPassport)];
    expect(raced.map((r) => [r.status, r.body.type])).toEqual([
      [422, '/problems/pin-not-for-this-request'],
      [422, '/problems/pin-not-for-this-request'],
    ]);
    expect((await list(u)).body.items).toHaveLength(1);
    // Someone else's ID card: read, not verified, nothing issued or revoked.
    const other = await renew(idCardForm(newPerson()));
    expect(other.status).toBe(200);
    expect(other.body).toMatchObject({ verified: false, vcId: null, ocrResult: { verified: false } });
    await expect(verify(oldVc)).resolves.toMatchObject({ verified: true, status: { revoked: false } });
    // Malformed requests: no image, a JSON body, no Idempotency-Key, an unknown card type, no token.
    const noImage = new FormData();
    noImage.set('idCardType', 'resident_id');
    expect((await renew(noImage)).status).toBe(400);
    expect(
      (
        await call(`${stack.apiUrl}/v1/account/kyc/renew`, {
          headers: { ...bearer(u), 'idempotency-key': randomUUID() },
          json: { idCardType: 'resident_id' },
        })
      ).status,
    ).toBe(415);
    expect((await renew(idCardForm(u.person), '')).status).toBe(400);
    expect((await renew(idCardForm(u.person, 'library_card'))).status).toBe(400);
    expect((await renew(idCardForm(u.person), randomUUID(), {})).status).toBe(401);

    // The OCR provider fails twice, then answers: the renewal goes through, billed once.
    const billed = async () => (await call(`${stack.sandboxUrl}/clova/_stats`)).body.billedReadings as number;
    const billedBefore = await billed();
    stack.faults.set('ocr', { failTimes: 2, status: 503 });
    const key = randomUUID();
    const form = idCardForm(u.person);
    const renewed = await renew(form, key);
    expect(await billed()).toBe(billedBefore + 1);
    expect(renewed.status).toBe(200);
    expect(renewed.body).toMatchObject({
      verified: true,
      ocrResult: { name: u.person.name, birthDate: u.person.birthDate, verified: true },
      vcId: expect.stringMatching(/^vc_/),
    });
    // The same request again (a retry): the same answer, one credential.
    const retried = await renew(form, key);
    expect([retried.status, retried.body]).toEqual([200, renewed.body]);
    // Even with the stored answer gone (released after a lost answer), the retry finds the same renewal.
    await stack.orm.em.fork().nativeDelete(IdempotencyRecordEntity, { key });
    const rerun = await renew(form, key);
    expect([rerun.status, rerun.body]).toEqual([200, renewed.body]);
    const items = (await list(u)).body.items as Array<{
      vcId: string;
      status: string;
      revocationReason: string | null;
    }>;
    expect(items.map((i) => [i.vcId, i.status, i.revocationReason])).toEqual([
      [renewed.body.vcId, 'active', null],
      [oldKyc.vcId, 'revoked', 'superseded'],
    ]);
    const newVc = (await get(renewed.body.vcId, u)).body;
    expect(newVc.credentialSubject).toMatchObject({
      name: u.person.name,
      birthDate: u.person.birthDate,
      kycLevel: 'identity-verified',
    });
    await expect(verify(newVc)).resolves.toMatchObject({ verified: true, status: { revoked: false } });
    await expect(verify(oldVc)).resolves.toMatchObject({ verified: false, status: { revoked: true } });

    // A provider that stays down: 503 once the retries are spent, and the credential stands.
    stack.faults.set('ocr', { failTimes: 1000, status: 503 });
    try {
      const down = await renew(idCardForm(u.person));
      expect(down.status).toBe(503);
    } finally {
      stack.faults.set('ocr', {});
    }
    expect((await list(u)).body.items.map((i: { status: string }) => i.status)).toEqual(['active', 'revoked']);
  });

  it('a renewal takes no made-up card: not another number than the card on file, nor one the issuing authority does not answer valid', async () => {
    const u = await registerUser(stack);
    const renew = async (card: ReturnType<typeof cardOf>) => {
      const form = idCardForm(u.person, 'resident_id', makeIdCardPng(card));
      form.set('pin', await encryptPin(stack, u.pin!, { request: await kycRenewalRequest(form) }));
      return call(`${stack.apiUrl}/v1/account/kyc/renew`, {
        headers: { ...bearer(u), 'idempotency-key': randomUUID() },
        form,
      });
    };
    const stored = async () => stack.orm.em.fork().findOneOrFail(UserEntity, { id: u.userId });
    const active = async () =>
      (await list(u)).body.items.filter((i: { status: string }) => i.status === 'active').length as number;
    // A card printed with the person's name and birth date but another number (before: read, matched, renewed).
    const madeUp = { ...cardOf(u.person), idNumber: residentNumberFor(u.person.birthDate) };
    expect((await renew(madeUp)).body).toMatchObject({ verified: false, vcId: null });

    // An account registered before cards were kept: a renewal puts the card on file, so a card the issuing authority
    // answers reported (lost, here) must not get there (before: the OCR's reading alone put it on file).
    const lost = { ...cardOf(u.person), idNumber: residentNumberFor(u.person.birthDate) };
    await stack.orm.em.fork().nativeUpdate(UserEntity, { id: u.userId }, { idCardHash: null });
    await call(`${stack.sandboxUrl}/useb/_reports`, { json: { idNumber: lost.idNumber, status: 'lost' } });
    expect((await renew(lost)).body).toMatchObject({ verified: false, vcId: null });
    expect((await stored()).idCardHash).toBeNull();
    expect(await active()).toBe(1);
    // The person's own card, valid at the authority, renews and goes on file.
    expect((await renew(cardOf(u.person))).body).toMatchObject({ verified: true, vcId: expect.stringMatching(/^vc_/) });
    expect((await stored()).idCardHash).not.toBeNull();
  });

  it('returns a credential to its owner only', async () => {
    const stranger = await registerUser(stack);
    const [mine] = (await list()).body.items;
    const refused = await get(mine.vcId, stranger);
    expect(refused.status).toBe(404);
    expect(JSON.stringify(refused.body)).not.toContain(user.person.name);
    expect((await get(`vc_${randomUUID()}`)).status).toBe(404);
    expect((await get('not-a-credential')).status).toBe(400);
    expect((await call(`${stack.apiUrl}/v1/did/vcs/${mine.vcId}`)).status).toBe(401);
    expect((await list(stranger)).body.items).toHaveLength(1); // the stranger's own KYC credential only
  });

  it('stores credentials sealed: no personal data in the database row', async () => {
    const rows = await stack.orm.em.fork().find(VerifiableCredentialEntity, { userId: user.userId });
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.documentSealed).not.toContain(user.person.name);
      expect(row.documentSealed).not.toContain('credentialSubject');
    }
  });
});
