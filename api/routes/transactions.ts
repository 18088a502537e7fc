import { Type } from '@sinclair/typebox';
import type { Orm } from '../../db/orm';
import { LedgerAccountEntity, LedgerEntryEntity, LedgerJournalEntity } from '../../db/entities';
import { FIAT_DECIMALS, formatMoney } from '../../activities/money';
import { defineRoute, type RouteSpec } from '../route-table';

const KST_OFFSET_MS = 9 * 3600 * 1000;
/** Calendar dates are Korean (UTC+9, no daylight saving). */
const kstDate = (at: Date) => new Date(at.getTime() + KST_OFFSET_MS).toISOString().slice(0, 10);
const kstMonthRange = (month: string): { from: Date; to: Date } => {
  const [year, mon] = month.split('-').map(Number) as [number, number];
  return { from: new Date(Date.UTC(year, mon - 1, 1) - KST_OFFSET_MS), to: new Date(Date.UTC(year, mon, 1) - KST_OFFSET_MS) };
};

const Query = Type.Object({
  month: Type.Optional(Type.String({ pattern: '^\\d{4}-(0[1-9]|1[0-2])$', description: 'YYYY-MM, a calendar month in Korean time' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  cursor: Type.Optional(Type.String({ pattern: '^\\d{1,18}$', description: 'next_cursor of the previous page' })),
}, { additionalProperties: false });
const TransactionList = Type.Object({
  transactions: Type.Array(Type.Object({
    id: Type.String(),
    type: Type.String({ description: 'charge | transfer' }),
    amount: Type.String({ description: 'signed, with thousands separators and the currency: "+10,000 KRW", "-1,000 KRW"' }),
    date: Type.String({ description: 'calendar date (Korean time), YYYY-MM-DD' }),
    reference: Type.String({ description: 'the charge or transfer id' }),
  })),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});

/** The user's money movements, newest first, from the ledger. */
export function transactionRoutes({ orm }: { orm: Orm }): RouteSpec[] {
  return [
    defineRoute({
      method: 'get', path: '/api/v1/transactions', operationId: 'listTransactions', tags: ['Charge'], auth: 'bearer',
      summary: 'Transaction history, newest first; month=YYYY-MM filters a calendar month (Korean time); paginated by cursor',
      query: Query,
      responses: { 200: { description: 'Transactions', schema: TransactionList } },
      handler: async ({ query, user }) => {
        const em = orm.em.fork();
        const accounts = await em.find(LedgerAccountEntity, { userId: user!.userId, kind: 'user_balance' });
        const limit = query.limit ?? 20;
        const where: Record<string, unknown> = { accountId: { $in: accounts.map((a) => a.accountId) } };
        if (query.month) { const { from, to } = kstMonthRange(query.month); where.postedAt = { $gte: from, $lt: to }; }
        if (query.cursor) where.id = { $lt: Number(query.cursor) };
        const entries = accounts.length
          ? await em.find(LedgerEntryEntity, where, { orderBy: { id: 'desc' }, limit: limit + 1 })
          : [];
        const page = entries.slice(0, limit);
        const journals = new Map((await em.find(LedgerJournalEntity, { journalId: { $in: page.map((e) => e.journalId) } })).map((j) => [j.journalId, j]));
        return {
          status: 200,
          body: {
            transactions: page.map((e) => ({
              id: String(e.id), type: journals.get(e.journalId)?.kind ?? 'other',
              amount: formatMoney(BigInt(e.amount), FIAT_DECIMALS[e.currency] ?? 0, e.currency, { signed: true }),
              date: kstDate(e.postedAt), reference: journals.get(e.journalId)?.reference ?? '',
            })),
            next_cursor: entries.length > limit ? String(page.at(-1)!.id) : null,
          },
        };
      },
    }),
  ];
}
