import { Type } from '@sinclair/typebox';

export const TRANSFER_NETWORKS = ['POLYGON', 'ETHEREUM', 'SOLANA'] as const;

export const TransferBody = Type.Object({
  to_address: Type.String({ minLength: 1, maxLength: 100, description: 'EVM: 0x address (EIP-55 checksum when mixed case); SOLANA: base58 public key' }),
  network: Type.Union(TRANSFER_NETWORKS.map((n) => Type.Literal(n))),
  token: Type.String({ pattern: '^[A-Z][A-Z0-9]{1,9}$', description: 'the network coin (ETH, POL, SOL) or a token such as USDT' }),
  amount: Type.String({ minLength: 1, maxLength: 64, description: 'decimal in whole tokens, e.g. "0.5"' }),
  pin: Type.String({ pattern: '^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]*){4}$', maxLength: 2048, description: 'the PIN as a JWE to /api/v1/pin/public-key, approving this transfer once: {"pin","iat","jti","request":{"action":"transfer","to_address","network","token","amount","idempotency_key"}}' }),
}, { additionalProperties: false });

export const TransferView = Type.Object({
  transfer_id: Type.String(),
  status: Type.String({ description: 'processing | confirmed | failed' }),
  tx_hash: Type.Union([Type.String(), Type.Null()]),
  fee: Type.Union([Type.String({ description: 'what the transaction cost, in the network coin, e.g. "0.0021 ETH"' }), Type.Null()]),
  fee_paid_by: Type.Union([Type.Literal('service'), Type.Literal('user')], {
    description: 'service: EVM gas sponsored by our paymaster (counted against the gas budget, nothing taken from the account); user: SOLANA fees paid from the wallet',
  }),
  amount: Type.String({ description: 'e.g. "12.5 USDT"' }),
  to_address: Type.String(), network: Type.String(),
  error: Type.Union([Type.String(), Type.Null()]),
});

export const TransferParams = Type.Object({ transferId: Type.String({ pattern: '^tr_[0-9a-f-]{36}$' }) });

export const TransferLimits = Type.Object({
  per_transfer_krw: Type.String({ description: 'largest single transfer, won' }),
  daily_krw: Type.String({ description: 'transfers per Korean day, won' }),
  used_today_krw: Type.String({ description: "today's transfers that did not fail, valued at their request-time price" }),
  remaining_today_krw: Type.String(),
  resets_at: Type.String({ format: 'date-time', description: 'next 00:00 KST' }),
});
