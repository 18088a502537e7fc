import { Type } from '@sinclair/typebox';
import { pageMembersSnake, pageQuery } from '../common/schemas';

export const Query = Type.Object(
  {
    month: Type.Optional(
      Type.String({ pattern: '^\\d{4}-(0[1-9]|1[0-2])$', description: 'YYYY-MM, a calendar month in Korean time' }),
    ),
    ...pageQuery({ default: 20, maximum: 100 }),
  },
  { additionalProperties: false },
);
export const TransactionList = Type.Object({
  transactions: Type.Array(
    Type.Object({
      id: Type.String(),
      type: Type.String({ description: "charge | payout | transfer | swap (and the ledger's other kinds)" }),
      amount: Type.String({
        description: 'signed, with thousands separators and the currency: "+10,000 KRW", "-1,000 KRW"',
      }),
      date: Type.String({ description: 'calendar date (Korean time), YYYY-MM-DD' }),
      reference: Type.String({ description: 'the charge or transfer id' }),
    }),
  ),
  ...pageMembersSnake,
});
