import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** The session cookie of a signed-in operator (the Temporal UI's codec calls carry it: same site, credentials on). */
export const OPERATOR_COOKIE = 'wallet_operator';

/** A new operator token: `op_` and 32 random bytes (base64url). Only its SHA-256 goes into OPERATOR_TOKENS. */
export const newOperatorToken = (): string => `op_${randomBytes(32).toString('base64url')}`;
export const operatorTokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');
export const OPERATOR_TOKEN_PATTERN = /^op_[A-Za-z0-9_-]{43}$/;

/**
 * The operators (OPERATOR_TOKENS: name -> SHA-256 of their token). The service never holds a token itself, so a
 * leaked configuration signs nobody in; a token is compared by its hash in constant time.
 */
export class Operators {
  private constructor(private readonly hashes: Array<{ name: string; hash: Buffer }>) {}

  static fromJson(json: string): Operators {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      throw new Error('OPERATOR_TOKENS is not valid JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new Error('OPERATOR_TOKENS must be a JSON object of operator name -> SHA-256 hex');
    const entries = Object.entries(parsed as Record<string, unknown>);
    for (const [name, hash] of entries) {
      if (!/^[A-Za-z0-9._@-]{1,64}$/.test(name))
        throw new Error(
          `OPERATOR_TOKENS: "${name.slice(0, 64)}" is not a valid operator name (letters, digits, . _ @ -)`,
        );
      if (typeof hash !== 'string' || !/^[0-9a-f]{64}$/.test(hash))
        throw new Error(
          `OPERATOR_TOKENS: the value for ${name} must be the SHA-256 (64 lowercase hex) of the token (npm run operator:token)`,
        );
    }
    return new Operators(entries.map(([name, hash]) => ({ name, hash: Buffer.from(hash as string, 'hex') })));
  }

  get size(): number {
    return this.hashes.length;
  }

  /** Whether the operator is still configured (a removed one's sessions end with the removal). */
  has(name: string): boolean {
    return this.hashes.some((entry) => entry.name === name);
  }

  /** The operator holding this token, or undefined. Every entry is compared, so timing tells nothing. */
  byToken(token: string): string | undefined {
    if (!OPERATOR_TOKEN_PATTERN.test(token)) return undefined;
    const presented = Buffer.from(operatorTokenHash(token), 'hex');
    let found: string | undefined;
    for (const { name, hash } of this.hashes) if (timingSafeEqual(presented, hash)) found = name;
    return found;
  }
}
