import type { Orm } from '../../db/orm';
import {
  LedgerAccountEntity,
  LedgerEntryEntity,
  LedgerJournalEntity,
  SignedOperationEntity,
  SolanaSwapEntity,
  TransferEntity,
} from '../../db/entities';
import type { NetworkRegistry } from '../../platform/networks';
import { coinOf } from '../../platform/networks';
import { SOL_DECIMALS } from '../../integrations/solana';
import type { SwapDetails } from '../../db/entities/signed-operation';
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

type Kind = 'ledger' | 'swap' | 'transfer';
interface Item {
  at: Date;
  kind: Kind;
  id: string;
  type: string;
  amount: string;
  reference: string;
}
interface Cursor {
  t: number;
  k: Kind;
  id: string;
}
/**
 * Newest first; at the same time transfers, then swaps, then ledger entries (charges, payouts), then each source's own
 * id, descending (the database's order: each source is read after the cursor in SQL, in that order, and they are
 * merged here).
 */
const newestFirst = (a: Item, b: Item) =>
  b.at.getTime() - a.at.getTime() ||
  b.kind.localeCompare(a.kind) ||
  // Swaps come from two tables (EVM and SOLANA): merged by id as each is read.
  (a.kind === 'swap' ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : 0);
const encodeCursor = (item: Item) =>
  Buffer.from(JSON.stringify({ t: item.at.getTime(), k: item.kind, id: item.id })).toString('base64url');
const decodeCursor = (text: string): Cursor => {
  try {
    const c = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Partial<Cursor>;
    if (
      typeof c.t === 'number' &&
      Number.isInteger(c.t) &&
      Math.abs(c.t) <= 8.64e15 &&
      ((c.k === 'ledger' && typeof c.id === 'string' && /^[0-9]{1,15}$/.test(c.id)) ||
        (c.k === 'transfer' && typeof c.id === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(c.id)) ||
        (c.k === 'swap' && typeof c.id === 'string' && /^swap_[0-9a-f-]{36}$/.test(c.id)))
    )
      return c as Cursor;
  } catch {
    /* fall through */
  }
  throw problems.unprocessable('invalid-cursor', INVALID_CURSOR_DETAIL);
};
/** The rows of one source after the cursor, in SQL: `at` below the cursor's, or equal with a smaller id of the same kind. */
const afterIn = (kind: Kind, time: string, id: string, cursor: Cursor | undefined, idValue: unknown) => {
  if (!cursor) return {};
  const at = new Date(cursor.t);
  // At the cursor's time the kinds come in descending order (transfer, swap, ledger): after a cursor of one kind, the
  // rows of that time of a kind that sorts below it are still to come; those of a kind above it were read.
  // (Always under $and: the month's range is a condition on the same field beside it.)
  if (kind !== cursor.k) return { $and: [{ [time]: kind < cursor.k ? { $lte: at } : { $lt: at } }] };
  return {
    $and: [{ [time]: { $lte: at } }, { $or: [{ [time]: { $lt: at } }, { [time]: at, [id]: { $lt: idValue } }] }],
  };
};

/** The user's money movements, newest first: charges (from the ledger) and crypto transfers (not failed ones). */
export function transactionRoutes({ orm, networks }: { orm: Orm; networks: NetworkRegistry }): RouteSpec[] {
  /** A swap's two sides, "-0.5 ETH, +1,495.910964 USDT", from what its pools really took and gave. */
  const swapAmount = (
    networkId: string,
    swap: Pick<SwapDetails, 'source' | 'target' | 'amountIn' | 'amountOut' | 'received'>,
  ): string => {
    const solana = networks.solana(networkId);
    const network = networks.get(networkId);
    const coin = solana
      ? { symbol: 'SOL', decimals: SOL_DECIMALS }
      : network
        ? coinOf(network)
        : { symbol: '', decimals: 18 };
    const tokens = solana?.tokens ?? network?.tokens;
    const decimalsOf = (symbol: string) => (symbol === coin.symbol ? coin.decimals : (tokens?.[symbol]?.decimals ?? 0));
    const taken = swap.received ?? { amountIn: swap.amountIn, amountOut: swap.amountOut };
    const quotedOnly = swap.received ? '' : ' (as quoted)';
    return `${formatMoney(-BigInt(taken.amountIn), decimalsOf(swap.source), swap.source, { signed: true })}, ${formatMoney(
      BigInt(taken.amountOut),
      decimalsOf(swap.target),
      swap.target,
      { signed: true },
    )}${quotedOnly}`;
  };
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
        'fail. Swaps appear once completed, with both sides as the pools took and gave them ' +
        '(`-0.5 ETH, +1,495.910964 USDT`). For the next page pass `next_cursor` back as `cursor` with the same `month` (`next_cursor` is ' +
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
        const month = query.month ? kstMonthRange(query.month) : undefined;
        const range = (field: string) => (month ? { [field]: { $gte: month.from, $lt: month.to } } : {});
        const accounts = await em.find(LedgerAccountEntity, { userId: user.userId, kind: 'user_balance' });
        const entries = accounts.length
          ? await em.find(
              LedgerEntryEntity,
              {
                accountId: { $in: accounts.map((a) => a.accountId) },
                ...range('postedAt'),
                ...afterIn('ledger', 'postedAt', 'id', cursor, cursor && Number(cursor.id)),
              },
              { orderBy: { postedAt: 'desc', id: 'desc' }, limit: limit + 1 },
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
          {
            userId: user.userId,
            status: { $ne: 'failed' },
            ...range('createdAt'),
            ...afterIn('transfer', 'createdAt', 'transferId', cursor, cursor?.id),
          },
          { orderBy: { createdAt: 'desc', transferId: 'desc' }, limit: limit + 1 },
        );
        const swaps = await em.find(
          SignedOperationEntity,
          {
            userId: user.userId,
            kind: 'swap',
            status: 'completed',
            // Dated when it completed (its last change: completed is final), so it is never behind a page already read.
            ...range('updatedAt'),
            ...afterIn('swap', 'updatedAt', 'operationId', cursor, cursor?.id),
          },
          { orderBy: { updatedAt: 'desc', operationId: 'desc' }, limit: limit + 1 },
        );
        const solanaSwaps = await em.find(
          SolanaSwapEntity,
          {
            userId: user.userId,
            status: 'completed',
            ...range('updatedAt'),
            ...afterIn('swap', 'updatedAt', 'swapId', cursor, cursor?.id),
          },
          { orderBy: { updatedAt: 'desc', swapId: 'desc' }, limit: limit + 1 },
        );
        const items: Item[] = [
          ...solanaSwaps.map((o) => ({
            at: o.updatedAt,
            kind: 'swap' as const,
            id: o.swapId,
            type: 'swap',
            amount: swapAmount(o.networkId, o.details),
            reference: o.swapId,
          })),
          ...swaps.map((o) => ({
            at: o.updatedAt,
            kind: 'swap' as const,
            id: o.operationId,
            type: 'swap',
            amount: swapAmount(o.networkId, o.details.swap!),
            reference: o.operationId,
          })),
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
        ].sort(newestFirst); // stable: each source keeps its database order
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
