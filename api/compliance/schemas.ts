import { Type } from '@sinclair/typebox';
import { pageMembers, pageQuery } from '../common/schemas';

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const SanctionsListView = Type.Object({
  source: Type.Literal('ofac-sdn'),
  listDate: Nullable(
    Type.String({ description: "The list's own date (SDN: DateOfIssue), YYYY-MM-DD; null before the first refresh" }),
  ),
  refreshedAt: Nullable(Type.String({ format: 'date-time', description: 'When the list was last read successfully' })),
  addressCount: Type.Integer({ description: 'Digital currency addresses on the stored list' }),
  sourceUrl: Nullable(Type.String()),
  status: Type.Union([Type.Literal('current'), Type.Literal('stale'), Type.Literal('missing')], {
    description: 'stale or missing: screening fails closed (503 screening-unavailable) until a refresh succeeds',
  }),
  staleAfter: Nullable(Type.String({ format: 'date-time', description: 'refreshedAt + SANCTIONS_LIST_MAX_AGE_HOURS' })),
  scheduleId: Type.String({ description: 'The Temporal schedule that refreshes it (Temporal UI, Schedules)' }),
  provider: Type.Union([Type.Literal('configured'), Type.Literal('none')], {
    description: 'Whether a screening provider (SCREENING_PROVIDER_URL) is asked too',
  }),
});

export const RefreshStarted = Type.Object({ workflowId: Type.String(), runId: Type.String() });

export const CaseView = Type.Object({
  caseId: Type.String(),
  userId: Type.String(),
  kind: Type.String({
    description:
      'sanctions_hit; monitoring: structuring, fan_out, new_recipient_large, new_device_large (each holds a transfer until decided)',
  }),
  status: Type.Union([
    Type.Literal('open'),
    Type.Literal('approved'),
    Type.Literal('rejected'),
    Type.Literal('closed'),
  ]),
  transferId: Nullable(Type.String()),
  networkId: Nullable(Type.String()),
  address: Nullable(Type.String()),
  source: Type.String({ description: 'ofac-sdn, screening-provider or monitoring' }),
  programme: Nullable(Type.String()),
  detail: Nullable(Type.String({ description: 'what a monitoring rule saw (amounts, counts, times)' })),
  foundAt: Type.String({ description: 'prepare, execute, address-book (the API) or workflow (just before signing)' }),
  openedAt: Type.String({ format: 'date-time' }),
  decidedAt: Nullable(Type.String({ format: 'date-time' })),
  decidedBy: Nullable(Type.String()),
  reason: Nullable(Type.String()),
});
export const CaseList = Type.Object({ items: Type.Array(CaseView), ...pageMembers });
export const CaseQuery = Type.Object(
  {
    status: Type.Optional(
      Type.Union([Type.Literal('open'), Type.Literal('approved'), Type.Literal('rejected'), Type.Literal('closed')]),
    ),
    userId: Type.Optional(Type.String({ pattern: '^usr_[0-9a-f-]{36}$' })),
    ...pageQuery({ default: 100, maximum: 500 }),
  },
  { additionalProperties: false },
);
export const CaseParams = Type.Object({ caseId: Type.String({ pattern: '^case_[0-9a-f-]{36}$' }) });

export const TrpCallbackParams = Type.Object({
  transferId: Type.String({ pattern: '^tr_[0-9a-f-]{36}$' }),
  token: Type.String({
    pattern: '^[0-9a-f]{32}$',
    description: 'the unguessable part of the callback URL we sent with the inquiry',
  }),
});
const TrpHeaders = {
  'api-version': Type.String({
    minLength: 1,
    maxLength: 20,
    description: 'the TRP version of the message: 3.1.x or 3.2.x (we send 3.1.0)',
  }),
  'request-identifier': Type.String({
    minLength: 1,
    maxLength: 64,
    pattern: '^[A-Za-z0-9-]+$',
    description: "the transfer's identifier, the same on every message about it",
  }),
};
export const TrpHeadersSchema = Type.Object(TrpHeaders);
/** TRP v3: the beneficiary VASP's resolution of our inquiry, at the callback the inquiry named. */
export const TrpResolutionBody = Type.Object(
  {
    approved: Type.Optional(
      Type.Object({
        address: Type.String({ minLength: 1, maxLength: 128 }),
        callback: Type.String({ minLength: 8, maxLength: 2048, pattern: '^https://' }),
      }),
    ),
    rejected: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
    version: Type.Optional(Type.String({ maxLength: 20 })),
  },
  { description: 'exactly one of approved, rejected (version alone says the decision is still to come)' },
);
export const TrpReceived = Type.Object({ received: Type.Literal(true) });

export const TrpConfirmationParams = Type.Object({
  recordId: Type.String({ pattern: '^trr_[0-9a-f-]{36}$' }),
  token: Type.String({ pattern: '^[0-9a-f]{32}$', description: 'the unguessable part of the URL we approved with' }),
});
/** TRP v3: the originator's transfer confirmation: the transaction id, or why the transfer was canceled. */
export const TrpConfirmationBody = Type.Object({
  txid: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  canceled: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
});

export const UserParams = Type.Object({ userId: Type.String({ pattern: '^usr_[0-9a-f-]{36}$' }) });
export const UserRecords = Type.Object({
  userId: Type.String(),
  exportedAt: Type.String({ format: 'date-time' }),
  cases: Type.Array(CaseView),
  travelRule: Type.Array(
    Type.Object({
      recordId: Type.String(),
      direction: Type.Union([Type.Literal('outbound'), Type.Literal('inbound')]),
      transferId: Nullable(Type.String()),
      counterpart: Type.Object({ id: Type.String(), name: Type.String() }),
      networkId: Type.String(),
      address: Type.String(),
      status: Type.String({
        description: 'pending, approved, rejected, timed_out, failed (outbound); answered (inbound)',
      }),
      reason: Nullable(Type.String()),
      requestIdentifier: Type.String(),
      requestedAt: Type.String({ format: 'date-time' }),
      decidedAt: Nullable(Type.String({ format: 'date-time' })),
      retainUntil: Type.String({ format: 'date-time' }),
      ivms101: Type.Unknown({ description: 'the IVMS101 message exchanged (sealed at rest, opened for the export)' }),
    }),
  ),
});

export const DecisionBody = Type.Object(
  {
    decision: Type.Union([Type.Literal('approve'), Type.Literal('reject')], {
      description: 'approve: a held transfer goes on; reject: it fails, nothing sent',
    }),
    reason: Type.String({
      minLength: 3,
      maxLength: 1000,
      pattern: '\\S',
      description: 'why, for the record (and the user, on a rejection)',
    }),
  },
  { additionalProperties: false },
);

export const TrpInquiryHeaders = TrpHeadersSchema;
/** TRP v3: a transfer inquiry another VASP sends about an account it believes is one of our users'. */
export const TrpInquiryBody = Type.Object({
  asset: Type.Union(
    [
      Type.Object({ dti: Type.String({ pattern: '^[0-9A-Z]{9}$' }) }, { additionalProperties: false }),
      Type.Object(
        { slip0044: Type.Union([Type.String({ pattern: '^[A-Za-z0-9]{1,16}$' }), Type.Integer({ minimum: 0 })]) },
        { additionalProperties: false },
      ),
      Type.Object({}, { additionalProperties: false, description: 'TRISA sends Bitcoin (coin type 0) as {}' }),
    ],
    { description: 'what is sent: {slip0044: "ETH"} (a coin, by its SLIP-0044 symbol or number) or {dti} (a token)' },
  ),
  amount: Type.Union(
    [Type.Number({ exclusiveMinimum: 0 }), Type.String({ pattern: '^[0-9]{1,40}(\\.[0-9]{1,36})?$' })],
    {
      description: 'in whole units: a JSON number (0.25), or the same as a decimal string',
    },
  ),
  callback: Type.String({ minLength: 8, maxLength: 2048, pattern: '^https://' }),
  IVMS101: Type.Object({}, { additionalProperties: true, description: 'the IVMS101 payload, 2020 or 2023 form' }),
  extensions: Type.Optional(Type.Object({}, { additionalProperties: true })),
});
export const TrpInquiryAnswer = Type.Object(
  {
    approved: Type.Optional(
      Type.Object({
        address: Type.String(),
        callback: Type.String({ description: 'where the originator confirms the transfer (its txid) or cancels it' }),
      }),
    ),
    rejected: Type.Optional(Type.String()),
  },
  { description: 'the TRP resolution: approved {address, callback} or rejected, answered at once' },
);
