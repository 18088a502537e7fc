import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, registerUser, type RegisteredUser } from '../helpers/http';
import { bearer } from '../helpers/wallet';
import { VerifiableCredentialEntity } from '../../db/entities';

const WALLET_CONTEXT_URL = 'https://w3id.org/wallet-kr/credentials/v1';

describe.each(testDatabases())('verifiable credentials on %s', (database) => {
  let stack: TestStack;
  let user: RegisteredUser;
  let context: object;
  beforeAll(async () => {
    stack = await startTestStack(database);
    user = await registerUser(stack);
    context = (await call(`${stack.apiUrl}/contexts/credentials/v1`)).body;
  });
  afterAll(async () => { await stack?.stop(); });

  /** Verifies with Digital Bazaar's VC libraries in their own (ESM) process, against the context the API publishes. */
  const verify = (credential: object): Promise<{ verified: boolean; errors: string[] }> => new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [join(__dirname, '..', 'helpers', 'verify-credential.mjs')], { timeout: 30_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stderr}`)); else resolve(JSON.parse(stdout));
    });
    child.stdin!.end(JSON.stringify({ credential, contexts: { [WALLET_CONTEXT_URL]: context } }));
  });
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
    await expect(verify(vc)).resolves.toEqual({ verified: true, errors: [] });

    // Any change to what was signed breaks the proof.
    const tampered = { ...vc, credentialSubject: { ...vc.credentialSubject, kycLevel: 'enhanced' } };
    expect((await verify(tampered)).verified).toBe(false);
    expect((await verify({ ...vc, validUntil: '2099-01-01T00:00:00Z' })).verified).toBe(false);
  });

  it('issues a credential per distinct basic-info submission, never twice for the same details', async () => {
    const details = { full_name: user.person.name, eng_surname: 'Hong', eng_name: 'Gildong', nationality: 'KR' };
    const first = await basicInfo(details);
    expect(first.status).toBe(200);
    expect(first.body.vcId).toMatch(/^vc_/);
    expect((await basicInfo(details)).body.vcId).toBe(first.body.vcId);
    const corrected = await basicInfo({ ...details, eng_name: 'Gil-dong' });
    expect(corrected.body.vcId).not.toBe(first.body.vcId);

    const vc = (await get(corrected.body.vcId)).body;
    expect(vc.type).toEqual(['VerifiableCredential', 'BasicInfoCredential']);
    expect(vc.credentialSubject).toEqual({ name: user.person.name, familyName: 'Hong', givenName: 'Gil-dong', nationality: 'KR' });
    await expect(verify(vc)).resolves.toMatchObject({ verified: true });
    expect((await list()).body.items.map((i: { type: string }) => i.type).sort()).toEqual(['BasicInfoCredential', 'BasicInfoCredential', 'KycCredential']);
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
