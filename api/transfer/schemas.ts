import { Type, type Static } from '@sinclair/typebox';
import { SignedSlot, SigningSlot } from '../wallet/schemas';
import { IdempotencyKeyHeader, pageMembersSnake, pageQuery } from '../common/schemas';

export const TRANSFER_NETWORKS = ['POLYGON', 'ETHEREUM', 'SOLANA'] as const;

const transferFields = {
  to_address: Type.String({
    minLength: 1,
    maxLength: 100,
    description: 'EVM: 0x address (EIP-55 checksum when mixed case); SOLANA: base58 public key',
  }),
  network: Type.Union(TRANSFER_NETWORKS.map((n) => Type.Literal(n))),
  token: Type.String({
    pattern: '^[A-Z][A-Z0-9]{1,9}$',
    description: 'the network coin (ETH, POL, SOL) or a token such as USDT',
  }),
  amount: Type.String({ minLength: 1, maxLength: 64, description: 'decimal in whole tokens, e.g. "0.5"' }),
  beneficiary_name: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 140,
      pattern: '\\S',
      description:
        "the recipient's name as their provider knows it: required when the Travel Rule applies (valued at TRAVEL_RULE_THRESHOLD_KRW or more, to an address another provider hosts); bound into the PIN and passkey approvals when given",
    }),
  ),
  beneficiary_vasp: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9._-]{2,64}$',
      description:
        "the recipient's exchange on CODE's Travel Rule network (Korean exchanges: its CODE entity id, one of GET /api/v1/transfer/vasps): the recipient's account is there, and the Travel Rule exchange goes to it over CODE; instead of travel_address. Bound into the PIN and passkey approvals when given",
    }),
  ),
  travel_address: Type.Optional(
    Type.String({
      pattern: '^ta[1-9A-HJ-NP-Za-km-z]{6,600}$',
      description:
        "the recipient's Travel Address (TRP, \"ta…\"), which their VASP gives them with the deposit address: the recipient's account is at that VASP, which the Travel Rule exchange goes to; leave it out for a wallet of the user's own (self-custody). Bound into the PIN and passkey approvals when given",
    }),
  ),
};

export const TransferBody = Type.Object(
  {
    ...transferFields,
    // Optional in the schema (as the interface leaves it) so a transfer without it is answered by the step-up, once
    // its checks pass: 422 step-up-required naming the request the PIN must approve.
    pin: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]*){4}$',
        maxLength: 2048,
        description:
          'the PIN as a JWE to /api/v1/pin/public-key, approving this transfer once: {"pin","iat","jti","request":{"action":"transfer","to_address","network","token","amount","idempotency_key"}}; without it: 422 step-up-required',
      }),
    ),
    signing: Type.Optional(
      Type.Object(
        {
          items: Type.Array(SignedSlot, {
            minItems: 1,
            maxItems: 1,
            description: 'the passkey slot of POST /api/v1/transfer/crypto/prepare, signed (a WebAuthn assertion)',
          }),
        },
        {
          description:
            'a passkey approval bound to this transfer: needed for a recipient not yet usable and above the passkey threshold',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

export const TransferView = Type.Object({
  transfer_id: Type.String(),
  status: Type.String({
    description:
      'held_for_review (a monitoring rule holds it until an operator decides; its funds are reserved) | processing (recorded) | submitted (sent) | confirmed (included in a block) | finalized (deep enough: confirmations on EVM, finalized commitment on Solana) | failed (proven)',
  }),
  tx_hash: Type.String({
    description:
      'the transaction on chain; empty until known (an EVM transfer is known by its bundle transaction once included)',
  }),
  fee: Type.String({
    description: 'what the transaction cost, in the network coin, e.g. "0.0021 ETH"; empty until known',
  }),
  fee_paid_by: Type.Union([Type.Literal('service'), Type.Literal('user')], {
    description:
      'service: EVM gas sponsored by our paymaster (counted against the gas budget, nothing taken from the account); user: SOLANA fees paid from the wallet',
  }),
  amount: Type.String({ description: 'e.g. "12.5 USDT"' }),
  to_address: Type.String(),
  network: Type.String(),
  error: Type.Union([Type.String(), Type.Null()]),
});

export const TransferParams = Type.Object({ transferId: Type.String({ pattern: '^tr_[0-9a-f-]{36}$' }) });

export const TransferLimits = Type.Object({
  per_transfer_krw: Type.String({ description: 'largest single transfer, won' }),
  daily_krw: Type.String({ description: 'transfers per Korean day, won' }),
  passkey_above_krw: Type.String({ description: 'a transfer worth more needs a passkey approval bound to it, won' }),
  used_today_krw: Type.String({
    description: "today's transfers that did not fail, valued at their request-time price",
  }),
  remaining_today_krw: Type.String(),
  resets_at: Type.String({ format: 'date-time', description: 'next 00:00 KST' }),
  recipient_cooling_off_seconds: Type.Integer({
    description: 'how long a new recipient waits before it can receive without a passkey approval',
  }),
});

export const TransferPrepareBody = Type.Object(transferFields, { additionalProperties: false });
export const TransferPrepareHeaders = Type.Object({ 'idempotency-key': IdempotencyKeyHeader });

const ApprovalReason = Type.Union([
  Type.Literal('new-recipient'),
  Type.Literal('recipient-cooling-off'),
  Type.Literal('above-passkey-threshold'),
]);

export const TransferPrepared = Type.Object({
  transfer_id: Type.String({
    description: 'the id the transfer will have when executed with the same Idempotency-Key',
  }),
  value_krw: Type.String({ description: 'its value in won now' }),
  passkey_above_krw: Type.String({ description: "the caller's passkey threshold, won" }),
  recipient: Type.Object({
    network: Type.String(),
    address: Type.String({ description: 'as stored (EVM: EIP-55 checksummed)' }),
    status: Type.Union([Type.Literal('trusted'), Type.Literal('cooling_off'), Type.Literal('unknown')]),
    usable_from: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  }),
  passkey_approval: Type.Union([Type.Literal('required'), Type.Literal('optional')]),
  reasons: Type.Array(ApprovalReason, { description: 'why a passkey approval is required (empty when optional)' }),
  travel_rule: Type.Object({
    applies: Type.Boolean({
      description:
        'valued at threshold_krw or more: the receiving provider is told originator and beneficiary (hosted), or the address must be proved yours (self-custody)',
    }),
    counterpart: Type.Union([Type.Object({ id: Type.String(), name: Type.String() }), Type.Null()], {
      description: 'the provider that hosts the address, when the rule applies to a hosted one',
    }),
    threshold_krw: Type.String(),
  }),
  items: Type.Array(SigningSlot, {
    description:
      'the passkey slot (authMethod passkey, WebAuthn request options whose challenge binds this transfer); empty when the caller has no passkey',
  }),
});

export const AddressBookBody = Type.Object(
  {
    network: Type.Union(TRANSFER_NETWORKS.map((n) => Type.Literal(n))),
    address: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'EVM: 0x address (EIP-55 checksum when mixed case); SOLANA: base58 public key',
    }),
  },
  { additionalProperties: false },
);
export const AddressBookParams = Type.Object({
  networkId: Type.Union(TRANSFER_NETWORKS.map((n) => Type.Literal(n))),
  address: Type.String({ minLength: 1, maxLength: 100 }),
});
export const AddressBookEntryView = Type.Object({
  network: Type.String(),
  address: Type.String(),
  status: Type.Union([Type.Literal('trusted'), Type.Literal('cooling_off')]),
  approved_by: Type.Union([Type.Literal('cooling-off'), Type.Literal('passkey'), Type.Literal('history')], {
    description: 'history: a recipient of transfers made before the address book',
  }),
  added_at: Type.String({ format: 'date-time' }),
  usable_from: Type.String({ format: 'date-time', description: 'from when transfers to it need no passkey approval' }),
  ownership_proved_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description:
      'when the user proved control of this self-custody address (a signed challenge): needed for transfers under the Travel Rule to an address no provider hosts',
  }),
});
export const OwnershipChallenge = Type.Object({
  network: Type.String(),
  address: Type.String(),
  message: Type.String({
    description:
      "sign exactly this text with the address's key: EVM personal_sign (EIP-191), SOLANA ed25519 over its UTF-8 bytes",
  }),
  expires_at: Type.String({ format: 'date-time' }),
});
export const OwnershipProofBody = Type.Object(
  {
    signature: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'EVM: 0x-hex 65-byte signature; SOLANA: the 64-byte signature in base64 or base58',
      }),
    ),
  },
  { additionalProperties: false },
);
export const AddressBookList = Type.Object({ items: Type.Array(AddressBookEntryView), ...pageMembersSnake });
export const AddressBookQuery = Type.Object(
  pageQuery({ default: 50, maximum: 100, whole: true }),
  // These lists took no query in 1.0.0, so a parameter they do not know (a cache-buster) is still let through.
);

/** The fields that name a transfer (what its PIN and passkey approvals bind, with its Idempotency-Key). */
export type TransferFields = Pick<
  Static<typeof TransferBody>,
  'to_address' | 'network' | 'token' | 'amount' | 'beneficiary_name' | 'travel_address' | 'beneficiary_vasp'
>;

export const TravelRuleVaspList = Type.Object({
  items: Type.Array(
    Type.Object({
      id: Type.String({
        description: 'what a transfer names: beneficiary_vasp (CODE) or, for TRP, the VASP its Travel Address names',
      }),
      name: Type.String(),
      network: Type.Union([Type.Literal('code'), Type.Literal('trp')], {
        description: "code: CODE's network (name it as beneficiary_vasp); trp: TRP (its users give a Travel Address)",
      }),
    }),
  ),
});

export const TravelAddressView = Type.Object({
  travel_address: Type.String({ description: 'TRP Travel Address ("ta…"), the same for every user of this service' }),
  inquiry_url: Type.String({ description: 'the TRP inquiry URL it names (mutual TLS, for VASPs we exchange with)' }),
});
