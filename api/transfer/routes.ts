import type { Context } from 'koa';
import { defineRoute, type RouteSpec } from '../http/route-table';
import { idForRequest } from '../http/idempotency';
import type { TransferService } from './service';
import { TransferBody, TransferLimits, TransferParams, TransferView } from './schemas';
import type { SpendingPolicy } from './spending-policy';

export function transferRoutes({ transfers, policy }: { transfers: TransferService; policy: SpendingPolicy }): RouteSpec[] {
  return [
    defineRoute({
      method: 'get', path: '/api/v1/transfer/limits', operationId: 'getTransferLimits', tags: ['Transfer'], auth: 'bearer',
      summary: "The caller's crypto transfer limits in won, what today's transfers used and when the day resets (00:00 KST)",
      responses: { 200: { description: 'Limits and usage', schema: TransferLimits } },
      handler: async ({ user }) => ({ status: 200, body: await policy.view(user!.userId) }),
    }),

    defineRoute({
      method: 'post', path: '/api/v1/transfer/crypto/execute', operationId: 'executeCryptoTransfer', tags: ['Transfer'], auth: 'bearer',
      summary: 'Transfer coins or tokens to an external address, confirmed by PIN; answers once the transaction is final (or 202 while it runs)',
      body: TransferBody,
      rateLimits: [{ rule: 'pin-attempt', key: ({ user }) => user!.userId }],
      idempotency: { required: false, scope: ({ user }) => `user:${user!.userId}` },
      responses: {
        429: { description: 'Too many requests (Retry-After)' },
        200: { description: 'Transfer final (status confirmed or failed)', schema: TransferView },
        202: { description: 'Still running: poll the Location', schema: TransferView },
        409: { description: 'EVM: no deployed account with transfers enabled on the network; SOLANA: wallet not opened; or no PIN set' },
        422: { description: 'Invalid address, unknown token, bad amount, insufficient balance (fees and rent included), over a limit (limit-per-transfer, limit-daily), no sponsored gas left today (gas-budget-exceeded), a transfer that would fail, or wrong PIN' },
        423: { description: 'PIN locked after too many wrong PINs' }, 503: { description: 'Network not configured, its RPC unavailable, or no price in won for the token (price-unavailable)' },
      },
      handler: async ({ body, user }, ctx?: Context) => {
        const key = ctx?.get('idempotency-key') || null;
        const transferId = idForRequest('tr', user!.userId, key ?? undefined);
        const { final, transfer } = await transfers.execute(user!.userId, transferId, body, key);
        return { status: final ? 200 : 202, body: transfer, headers: { location: `/api/v1/transfer/crypto/${transferId}` } };
      },
    }),

    defineRoute({
      method: 'get', path: '/api/v1/transfer/crypto/:transferId', operationId: 'getCryptoTransfer', tags: ['Transfer'], auth: 'bearer',
      summary: 'A crypto transfer and its status',
      params: TransferParams,
      responses: { 200: { description: 'Transfer', schema: TransferView }, 404: { description: 'No such transfer for this user' } },
      handler: async ({ params, user }) => ({ status: 200, body: await transfers.get(user!.userId, params.transferId) }),
    }),
  ];
}
