import { createHash, randomBytes } from 'node:crypto';
import type { Orm } from '../../db/orm';
import { IdentityRequestEntity } from '../../db/entities';
import type { DataEncryption } from '../../platform/data-encryption';
import { clock } from '../../platform/clock';
import type { PassResult } from '../../workflows/messages';
import type { PassTokenIntrospection, PassTokens } from '../../integrations/identity';
import { niceKeys, openNiceReturn, type NiceIdentityClient, type NiceResult } from '../../integrations/identity-nice';
import { HttpError, problems } from '../http/problems';
import { passTokenHash } from './guard';
import { safeEqual } from '../auth/tokens';

/** A verification opened for the app: what its browser posts to the provider's window. */
export interface OpenedVerification {
  passRequestId: string;
  expiresAt: string;
  window: { url: string; method: 'POST'; fields: Record<string, string> };
}

/** What the browser's return gives: the result to deliver, and the one-time code the app exchanges for its pass token. */
export interface WindowReturn {
  result: PassResult;
  passRequestId: string;
  code: string;
}

/** The return path NICE sends the person's browser back to (PUBLIC_BASE_URL, else the address the app called). */
export const NICE_RETURN_PATH = '/v1/auth/pass/nice/return';

/** A pass token's life (as a callback provider's), at most the crypto token's period. */
export const PASS_TOKEN_TTL_SECONDS = 1800;

interface Seed {
  reqDtim: string;
  reqNo: string;
  tokenVal: string;
  siteCode: string;
}

const invalidReturn = (detail: string) =>
  new HttpError(400, 'invalid-identity-return', 'Invalid identity verification return', detail);

const invalidCode = () =>
  new HttpError(
    400,
    'invalid-pass-code',
    'Invalid pass code',
    'The code or its verifier is not the one of this verification, or the code was used already',
  );
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/**
 * IDENTITY_PROVIDER=nice: the service opens each verification in NICE's standard window and issues the pass token the
 * app carries (NICE issues none). The person's browser brings the encrypted result back to NICE_RETURN_PATH, where it
 * is checked (integrity value, request number, site code), decrypted and handed to the registration or sign-in exactly
 * as the callback of IDENTITY_PROVIDER=callback is; that browser gets a one-time code, which the app that opened the
 * verification exchanges for the pass token with the verifier of its PKCE challenge (RFC 7636, S256). So the pass
 * token goes only to the app whose browser verified: a window opened by someone else and completed by a person lured
 * to it gives its opener nothing. The pass tokens are introspected here, from the database.
 */
export class NiceIdentityWindows implements PassTokens {
  constructor(
    private readonly deps: {
      orm: Orm;
      encryption: DataEncryption;
      nice: NiceIdentityClient;
      publicBaseUrl?: string;
    },
  ) {}

  async open(origin: string, codeChallenge: string): Promise<OpenedVerification> {
    const { orm, encryption, nice } = this.deps;
    // NICE's requestno: at most 30 characters, echoed in the result; ours is also the verification's passRequestId.
    const id = `nice${randomBytes(13).toString('hex')}`;
    const window = await nice.openWindow(id, `${this.deps.publicBaseUrl ?? origin}${NICE_RETURN_PATH}`);
    const expiresAt = new Date(Math.min(window.expiresAt.getTime(), clock.real() + PASS_TOKEN_TTL_SECONDS * 1000));
    const seed: Seed = { ...window.keySeed, siteCode: window.siteCode };
    const em = orm.em.fork();
    // The keys of verifications over a day past their end are kept no longer than that.
    await em.nativeDelete(IdentityRequestEntity, { expiresAt: { $lt: new Date(clock.real() - 24 * 3600_000) } });
    em.create(IdentityRequestEntity, {
      id,
      provider: 'nice',
      tokenVersionId: window.tokenVersionId,
      seedSealed: encryption.sealText(JSON.stringify(seed), id),
      codeChallenge,
      expiresAt,
    });
    await em.flush();
    return {
      passRequestId: id,
      expiresAt: expiresAt.toISOString(),
      window: { url: window.url, method: 'POST', fields: window.fields },
    };
  }

  async introspectPassToken(passToken: string): Promise<PassTokenIntrospection> {
    const row = await this.deps.orm.em
      .fork()
      .findOne(IdentityRequestEntity, { passTokenHash: passTokenHash(this.deps.encryption, passToken) });
    if (!row || row.expiresAt.getTime() <= clock.real()) return { active: false };
    return { active: true, passRequestId: row.id, expiresAt: row.expiresAt.toISOString() };
  }

  /**
   * The browser's return: the verification it names by token_version_id, its integrity value under that
   * verification's keys, then the result's own request number and site code. Answers the result to deliver and a code
   * for this browser; a return that does not open is refused, and nothing is delivered. The same return again (a
   * reload) answers a new code: only the last one given is good, and only until a pass token is issued.
   */
  async readReturn(ret: {
    token_version_id: string;
    enc_data: string;
    integrity_value: string;
  }): Promise<WindowReturn> {
    const { encryption } = this.deps;
    const em = this.deps.orm.em.fork();
    const row = await em.findOne(IdentityRequestEntity, { tokenVersionId: ret.token_version_id });
    if (!row) throw invalidReturn('No identity verification was opened with this token_version_id');
    if (row.expiresAt.getTime() <= clock.real()) throw invalidReturn('This identity verification has expired');
    const seed = JSON.parse(encryption.openText(row.seedSealed, row.id)) as Seed;
    const result = openNiceReturn(niceKeys(seed.reqDtim, seed.reqNo, seed.tokenVal), ret);
    if (!result) throw invalidReturn('The result does not open under this verification (integrity_value or enc_data)');
    if (result.requestno !== row.id || (result.sitecode !== undefined && result.sitecode !== seed.siteCode))
      throw invalidReturn('The result is not the one of this verification');
    if (row.passTokenHash) throw invalidReturn('This identity verification was taken already: start a new one');
    const code = randomBytes(32).toString('base64url');
    row.codeHash = encryption.fingerprint(code, 'pass-code');
    if (!row.returnedAt) {
      row.returnedAt = clock.date();
      row.resultCode = result.resultcode.slice(0, 8);
    }
    await em.flush();
    return { result: passResultOf(result), passRequestId: row.id, code };
  }

  /**
   * The code of the browser's return and the verifier of the opener's challenge: the pass token. Issued once; the same
   * code and verifier again (a retry after a lost answer) answer the same token, nothing else does.
   */
  async issuePassToken(
    passRequestId: string,
    code: string,
    codeVerifier: string,
  ): Promise<{ passToken: string; expiresAt: string }> {
    const { encryption } = this.deps;
    const em = this.deps.orm.em.fork();
    const row = await em.findOne(IdentityRequestEntity, { id: passRequestId });
    if (!row || !row.codeHash || row.expiresAt.getTime() <= clock.real()) throw invalidCode();
    if (
      !safeEqual(row.codeHash, encryption.fingerprint(code, 'pass-code')) ||
      !safeEqual(row.codeChallenge, s256(codeVerifier))
    )
      throw invalidCode();
    const answer = (sealed: string) => ({
      passToken: encryption.openText(sealed, `${row.id}|pass-token`),
      expiresAt: row.expiresAt.toISOString(),
    });
    if (row.passTokenSealed) return answer(row.passTokenSealed);
    const passToken = randomBytes(32).toString('base64url');
    const sealed = encryption.sealText(passToken, `${row.id}|pass-token`);
    // Once: the row takes a token only if no other exchange gave it one meanwhile (then that one is answered).
    const taken = await em.nativeUpdate(
      IdentityRequestEntity,
      { id: row.id, codeHash: row.codeHash, passTokenHash: null },
      { passTokenHash: passTokenHash(encryption, passToken), passTokenSealed: sealed },
    );
    if (taken === 1) return answer(sealed);
    const issued = await this.deps.orm.em.fork().findOne(IdentityRequestEntity, { id: row.id });
    if (!issued?.passTokenSealed) throw invalidCode();
    return answer(issued.passTokenSealed);
  }
}

/** NICE's result as the registration and sign-in workflows take a provider's (the callback's fields). */
export function passResultOf(result: NiceResult): PassResult {
  if (result.resultcode !== '0000') return { passRequestId: result.requestno, success: false };
  const name = result.utf8_name ? decodeURIComponent(result.utf8_name) : result.name;
  const birth = result.birthdate?.match(/^(\d{4})(\d{2})(\d{2})$/);
  return {
    passRequestId: result.requestno,
    success: true,
    ci: result.ci,
    di: result.di,
    name: name?.trim(),
    birthDate: birth ? `${birth[1]}-${birth[2]}-${birth[3]}` : undefined,
    gender: result.gender === '1' ? 'M' : result.gender === '0' ? 'F' : undefined,
    // NICE tells a Korean national (0) from a foreigner (1), not the foreigner's country.
    nationality: result.nationalinfo === '0' ? 'KR' : undefined,
    phone: result.mobileno,
  };
}

/** IDENTITY_PROVIDER=callback opens no window here: the person verifies in the provider's own app. */
export const noWindows = (): never => {
  throw problems.notFound(
    'An identity verification window (this service is configured with IDENTITY_PROVIDER=callback: the provider issues the pass token)',
  );
};
