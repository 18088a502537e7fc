/**
 * The wallet service's TypeScript client: every operation typed from the service's OpenAPI document (paths and
 * bodies checked at compile time, by openapi-fetch), and helpers for what the document cannot say.
 *
 *   const api = createWalletClient({ baseUrl: 'http://localhost:3000', accessToken: () => session.accessToken });
 *   const { data, error } = await api.GET('/v1/account/profile');
 */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { JWK } from 'jose';
import type { paths } from './schema';
import { PinEncryptor } from './pin';

export type { paths, components, operations, webhooks } from './schema';
export { withRetries, isRetryable, retryAfterMs, idempotencyKey, type RetryOptions } from './retry';
export { poll, type PollOptions } from './polling';
export { pages } from './pages';
export {
  PinEncryptor,
  backupReplaceRequest,
  kycRenewRequest,
  transferRequest,
  swapRequest,
  payoutRequest,
  type PayoutFields,
  type TransferFields,
  type PinRequest,
  type WalletBackupFields,
} from './pin';
export { signSlot, approveSlot, type DigestSigner, type PasskeyAssertion } from './signing';
export { verifyWebhook, type WebhookEvent, type WebhookEventOf } from './webhooks';
export { SoftwarePasskey } from './software-passkey';

export interface WalletClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** The service's base URL (http://localhost:3000 for `npm start`). */
  baseUrl: string;
  /** The user's access token (or a function giving the current one): sent as Bearer where no Authorization is given. */
  accessToken?: string | (() => string | undefined);
}

export type WalletClient = Client<paths> & {
  /** The PIN as the service takes it (its public key fetched once). */
  pin: PinEncryptor;
};

export function createWalletClient(options: WalletClientOptions): WalletClient {
  const { accessToken, ...clientOptions } = options;
  const client = createClient<paths>(clientOptions);
  if (accessToken !== undefined) {
    client.use({
      onRequest({ request }) {
        const token = typeof accessToken === 'function' ? accessToken() : accessToken;
        if (token && !request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${token}`);
        return request;
      },
    });
  }
  let publicKey: Promise<JWK> | undefined;
  const pin = new PinEncryptor(
    () =>
      (publicKey ??= (async () => {
        const { data, error, response } = await client.GET('/api/v1/pin/public-key');
        if (!data) {
          publicKey = undefined;
          throw new Error(`GET /api/v1/pin/public-key answered ${response.status}: ${JSON.stringify(error)}`);
        }
        return data.data.jwk as unknown as JWK;
      })()),
  );
  return Object.assign(client, { pin });
}
