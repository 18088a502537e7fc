import { Type } from '@sinclair/typebox';
import { DateTime, pageMembers, pageQuery } from '../common/schemas';
import { EventTypeName } from '../events/schemas';

const Subscription = Type.Array(Type.Union([EventTypeName, Type.Literal('*')]), {
  minItems: 1,
  maxItems: 64,
  uniqueItems: true,
  description: 'Event types to receive ("*": all, including types added later)',
});
const WebhookUrl = Type.String({
  minLength: 8,
  maxLength: 2048,
  description:
    'https URL (http only outside production); no private or loopback address unless WEBHOOK_ALLOW_PRIVATE_NETWORKS',
});

export const EndpointBody = Type.Object(
  {
    url: WebhookUrl,
    eventTypes: Subscription,
    description: Type.Optional(Type.String({ maxLength: 256 })),
  },
  { additionalProperties: false },
);

export const EndpointPatch = Type.Object(
  {
    url: Type.Optional(WebhookUrl),
    eventTypes: Type.Optional(Subscription),
    description: Type.Optional(Type.String({ maxLength: 256 })),
    enabled: Type.Optional(
      Type.Boolean({
        description:
          'false: stop deliveries; true: resume a disabled endpoint from the first event it has not received',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const Endpoint = Type.Object({
  endpointId: Type.String(),
  url: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  eventTypes: Type.Array(Type.String()),
  status: Type.Union([Type.Literal('active'), Type.Literal('disabled')]),
  disabledReason: Type.Union([Type.String(), Type.Null()], {
    description: 'Why deliveries stopped (the service gave up on an event, or an operator disabled it)',
  }),
  cursor: Type.String({ description: 'Position of the last event delivered (events API cursor)' }),
  delivered: Type.Integer(),
  pending: Type.Integer({ description: 'Subscribed events after the cursor, not yet delivered' }),
  failingSince: Type.Union([DateTime, Type.Null()]),
  lastError: Type.Union([Type.String(), Type.Null()], {
    description: "The receiver's last failed answer, or why it could not be reached",
  }),
  lastAttemptAt: Type.Union([DateTime, Type.Null()]),
  previousSecretValidUntil: Type.Union([DateTime, Type.Null()], {
    description: 'During a secret rotation: until when the previous secret signs too',
  }),
  createdAt: DateTime,
});
export const EndpointWithSecret = Type.Intersect([
  Endpoint,
  Type.Object({
    secret: Type.String({
      description: 'The signing secret (whsec_…): shown once; verify deliveries with it (Standard Webhooks)',
    }),
  }),
]);
export const EndpointList = Type.Object({ items: Type.Array(Endpoint), ...pageMembers });
export const EndpointQuery = Type.Object(
  pageQuery({ default: 50, maximum: 100, whole: true }),
  // These lists took no query in 1.0.0, so a parameter they do not know (a cache-buster) is still let through.
);
export const EndpointParams = Type.Object({ endpointId: Type.String({ pattern: '^we_[0-9a-f-]{36}$' }) });

export const SecretRotation = Type.Object(
  {
    overlapSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 7 * 24 * 3600,
        default: 24 * 3600,
        description: 'How long the previous secret keeps signing too (both signatures are sent)',
      }),
    ),
  },
  { additionalProperties: false },
);
export const RotatedSecret = Type.Object({
  secret: Type.String(),
  previousSecretValidUntil: Type.Union([DateTime, Type.Null()]),
});

export const ReplayBody = Type.Object(
  {
    after: Type.String({
      pattern: '^[0-9]{1,10}$',
      description:
        'An events API cursor: every subscribed event after it is delivered again, in order (same webhook-id as before)',
    }),
  },
  { additionalProperties: false },
);
export const Replay = Type.Object({ cursor: Type.String() });
