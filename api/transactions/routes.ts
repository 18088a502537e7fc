import type { Orm } from '../../db/orm';
import { LedgerAccountEntity, LedgerEntryEntity, LedgerJournalEntity, TransferEntity } from '../../db/entities';
import { FIAT_DECIMALS, formatMoney } from '../../platform/money';
import { Query, TransactionList } from './schemas';
import { defineRoute, type RouteSpec } from '../http/route-table';
import { problems } from '../http/problems';
import { INVALID_CURSOR_DETAIL, nextLink } from '../http/pagination';
import { PAGE_LINK_HEADER } from '../common/schemas';

const KST_OFFSET_MS = 9 * 3600 * 1000;
/** Calendar dates are Korean (UTC+9, no daylight saving). */
const kstDate = (at: Date) => new Date(at.getTime() + KST_OFFSET_MS).toISOString().slice(0, 10);
const kstMonthRange = (month: string): { from: Date; to: Date } => {
  const [year, mon] = month.split('-').map(Number) as [number, number];
  return {
    from: new Date(Date.UTC(year, mon - 1, 1) - KST_OFFSET_MS),
    to: new Date(Date.UTC(year, mon, 1) - KST_OFFSET_MS),
  };
};

interface Item {
  at: Date;
  kind: 'ledger' | 'transfer';
  id: string;
  type: string;
  amount: string;
  reference: string;
}
interface Cursor {
  t: number;
  k: string;
  id: string;
}
/** Newest first; ties broken by kind, then id (descending), so pages never skip or repeat an item. */
const before = (a: Pick<Item, 'at' | 'kind' | 'id'>, c: Cursor) => {
  const t = a.at.getTime();
  if (t !== c.t) return t < c.t;
  if (a.kind !== c.k) return a.kind < c.k;
  return a.id.padStart(64, '0') < c.id.padStart(64, '0');
};
const newestFirst = (a: Item, b: Item) =>
  b.at.getTime() - a.at.getTime() ||
  b.kind.localeCompare(a.kind) ||
  b.id.padStart(64, '0').localeCompare(a.id.padStart(64, '0'));
const encodeCursor = (item: Item) =>
  Buffer.from(JSON.stringify({ t: item.at.getTime(), k: item.kind, id: item.id })).toString('base64url');
const decodeCursor = (text: string): Cursor => {
  try {
    const c = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Cursor;
    if (typeof c.t === 'number' && typeof c.k === 'string' && typeof c.id === 'string') return c;
  } catch {
    /* fall through */
  }
  throw problems.unprocessable('invalid-cursor', INVALID_CURSOR_DETAIL);
};

/** The user's money movements, newest first: charges (from the ledger) and crypto transfers (not failed ones). */
export function transactionRoutes({ orm }: { orm: Orm }): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/v1/transactions',
      operationId: 'listTransactions',
      tags: ['Charge'],
      auth: 'bearer',
      summary:
        'Transaction history, newest first; month=YYYY-MM filters a calendar month (Korean time); paginated by cursor',
      description:
        'Charges appear once credited (one still processing, or failed, is not listed); crypto transfers appear ' +
        'as soon as they are recorded, with the amount sent (fees not included), and leave the list if they ' +
        'fail. For the next page pass `next_cursor` back as `cursor` with the same `month` (`next_cursor` is ' +
        'null and `has_more` false on the last page; `Link: <…>; rel="next"` names the next page); a cursor this ' +
        'API did not return answers 422 `invalid-cursor`.',
      query: Query,
      responses: {
        200: { description: 'Transactions', schema: TransactionList, headers: PAGE_LINK_HEADER },
        422: { description: 'A cursor this API did not return' },
      },
      handler: async ({ query, user }, ctx) => {
        const em = orm.em.fork();
        const limit = query.limit ?? 20;
        const cursor = query.cursor ? decodeCursor(query.cursor) : undefined;
        const range = query.month ? kstMonthRange(query.month) : undefined;
        const window = (field: string) => ({
          ...(range || cursor
            ? {
                [field]: {
                  ...(range ? { $gte: range.from, $lt: range.to } : {}),
                  ...(cursor ? { $lte: new Date(cursor.t) } : {}),
                },
              }
            : {}),
        });
        const accounts = await em.find(LedgerAccountEntity, { userId: user.userId, kind: 'user_balance' });
        const entries = accounts.length
          ? await em.find(
              LedgerEntryEntity,
              { accountId: { $in: accounts.map((a) => a.accountId) }, ...window('postedAt') },
              { orderBy: { postedAt: 'desc', id: 'desc' }, limit: limit + 50 },
            )
          : [];
        const journals = new Map(
          (await em.find(LedgerJournalEntity, { journalId: { $in: entries.map((e) => e.journalId) } })).map((j) => [
            j.journalId,
            j,
          ]),
        );
        const transfers = await em.find(
          TransferEntity,
          { userId: user.userId, status: { $ne: 'failed' }, ...window('createdAt') },
          { orderBy: { createdAt: 'desc' }, limit: limit + 50 },
        );
        const items: Item[] = [
          ...entries.map((e) => ({
            at: e.postedAt,
            kind: 'ledger' as const,
            id: String(e.id),
            type: journals.get(e.journalId)?.kind ?? 'other',
            amount: formatMoney(BigInt(e.amount), FIAT_DECIMALS[e.currency] ?? 0, e.currency, { signed: true }),
            reference: journals.get(e.journalId)?.reference ?? '',
          })),
          ...transfers.map((t) => ({
            at: t.createdAt,
            kind: 'transfer' as const,
            id: t.transferId,
            type: 'transfer',
            amount: formatMoney(-BigInt(t.amount), t.decimals, t.token, { signed: true }),
            reference: t.transferId,
          })),
        ]
          .filter((item) => !cursor || before(item, cursor))
          .sort(newestFirst);
        const page = items.slice(0, limit);
        const nextCursor = items.length > limit ? encodeCursor(page.at(-1)!) : null;
        return {
          status: 200,
          headers: nextLink(ctx, nextCursor),
          body: {
            transactions: page.map((i) => ({
              id: i.kind === 'ledger' ? i.id : i.reference,
              type: i.type,
              amount: i.amount,
              date: kstDate(i.at),
              reference: i.reference,
            })),
            next_cursor: nextCursor,
            has_more: nextCursor !== null,
          },
        };
      },
    }),
  ];
}
