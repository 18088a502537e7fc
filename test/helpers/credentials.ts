import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { call } from './http';

export const WALLET_CONTEXT_URL = 'https://w3id.org/wallet-kr/credentials/v1';

export interface Verification {
  verified: boolean;
  errors: string[];
  status: null | { checked: boolean; revoked: boolean; listUrl: string | null };
}

/**
 * Verifies a credential with Digital Bazaar's libraries in their own (ESM) process, against the context the API
 * publishes; its status list is fetched from the URL the credential names, as a verifier would.
 */
export async function verifyCredential(apiUrl: string, credential: object): Promise<Verification> {
  const context = (await call(`${apiUrl}/contexts/credentials/v1`)).body;
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [join(__dirname, 'verify-credential.mjs')],
      { timeout: 30_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${error.message}\n${stderr}`));
        else resolve(JSON.parse(stdout));
      },
    );
    child.stdin!.end(JSON.stringify({ credential, contexts: { [WALLET_CONTEXT_URL]: context } }));
  });
}
