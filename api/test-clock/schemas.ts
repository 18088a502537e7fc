import { Type } from '@sinclair/typebox';
import { DateTime } from '../common/schemas';

/** One Korean day is 86,400 s; a move is at most 400 days (a year of limits, a recovery delay and some). */
export const AdvanceBody = Type.Object(
  {
    seconds: Type.Integer({
      minimum: 1,
      maximum: 400 * 86_400,
      description: 'How far to move the clock forward (86400: one day; the clock never moves back)',
    }),
  },
  { additionalProperties: false },
);

export const TestClockView = Type.Object({
  enabled: Type.Boolean({ description: 'TEST_CLOCK_ENABLED: false in production, where moving answers 409' }),
  now: DateTime,
  offsetSeconds: Type.Number({ description: "How far the service's clock runs ahead of the system's" }),
});

export const TestClockMoved = Type.Object({
  now: DateTime,
  offsetSeconds: Type.Number(),
  chains: Type.Record(Type.String(), Type.Integer(), {
    description: "Each local EVM chain's new block time (Unix seconds), by network id",
  }),
});
