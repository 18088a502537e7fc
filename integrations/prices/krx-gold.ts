import { Type } from '@sinclair/typebox';
import { ApplicationFailure } from '@temporalio/common';
import { PROVIDER_REJECTED } from '../../platform/failures';
import type { ProviderTransport } from '../../platform/provider-settings';
import {
  ProviderAnswerInvalid,
  ProviderUnavailable,
  expectAnswer,
  requestProvider,
  type ProviderHttpOptions,
} from '../provider-http';
import type { MarketData, PricePoint } from './market-data';

/**
 * Gold in won per gram from the Korea Exchange's gold market (KRX 금시장, 금 99.99_1kg, quoted per gram), through the
 * KRX Open API (https://openapi.krx.co.kr: 일반상품 > 금시장 일별매매정보, `GET {base}/gen/gold_bydd_trd?basDd=YYYYMMDD`
 * with the key in the `AUTH_KEY` header, answering `{"OutBlock_1": [{BAS_DD, ISU_CD, ISU_NM, TDD_CLSPRC, …}]}`, one
 * trading day a call, published the next day). Upbit lists no gold. A day's close stands from 15:30 Korean time, the
 * market's close; every hour mark carries the last close before it (marks after a close in the same hour aside), and
 * says so (`carried`). Weekends are not asked; a holiday answers no row. Days before yesterday never change and are
 * kept.
 */
export const KRX_OPEN_API = 'https://data-dbg.krx.co.kr/svc/apis';
const GOLD_CODES = new Set(['04020000', 'M04020000']);
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const KST_MS = 9 * HOUR_MS;
/** 15:30 KST, the gold market's close, as an offset into the Korean day. */
const CLOSE_OFFSET_MS = 15.5 * HOUR_MS;
/** How many days before a window a close is looked for (a long holiday). */
const LOOKBACK_DAYS = 10;
const PARALLEL = 4;
const MAX_KEPT_DAYS = 800;
/** How long a day without its row yet (not published) is taken as such before it is asked again. */
const UNPUBLISHED_RETRY_MS = 10 * 60_000;

const Won = Type.String({ pattern: '^[0-9,]+(\\.[0-9]+)?$' });
export const KrxGoldAnswer = Type.Object({
  OutBlock_1: Type.Array(
    Type.Object({
      BAS_DD: Type.String({ pattern: '^\\d{4}[-/]?\\d{2}[-/]?\\d{2}$' }),
      ISU_CD: Type.String(),
      ISU_NM: Type.String(),
      TDD_CLSPRC: Won,
    }),
    { maxItems: 50 },
  ),
});

/** The Korean date (YYYYMMDD) of a time, and the start of that Korean day (ms). */
const kstDay = (ms: number) => Math.floor((ms + KST_MS) / DAY_MS);
const basDd = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10).replace(/-/g, '');

export class KrxGoldPrices implements MarketData {
  private readonly http: ProviderHttpOptions;
  /** Closes by Korean day number (null: no trading that day), for days that will not change. */
  private readonly days = new Map<number, number | null>();
  /** Days not published yet (no row), asked again only after a while; and the days being asked now (shared). */
  private readonly unpublished = new Map<number, number>();
  private readonly asking = new Map<number, Promise<number | null>>();

  constructor(options: { apiUrl: string; authKey: string; transport: ProviderTransport; now?: () => number }) {
    this.http = {
      baseUrl: options.apiUrl,
      timeoutMs: options.transport.timeoutMs,
      tls: options.transport.tls,
      headers: { AUTH_KEY: options.authKey },
      maxAnswerBytes: 64 * 1024,
    };
    this.now = options.now ?? Date.now;
  }

  private readonly now: () => number;

  quotes(asset: string): boolean {
    return asset === 'GOLD';
  }

  async hourly(asset: string, fromHour: number, toHour: number): Promise<PricePoint[]> {
    if (asset !== 'GOLD')
      throw ApplicationFailure.create({
        type: PROVIDER_REJECTED,
        nonRetryable: true,
        message: `the KRX gold market quotes no ${asset}`,
        details: [{ asset }, 404],
      });
    const firstDay = kstDay(fromHour * HOUR_MS) - LOOKBACK_DAYS;
    const lastDay = Math.min(kstDay(toHour * HOUR_MS), kstDay(this.now()));
    const wanted: number[] = [];
    for (let day = firstDay; day <= lastDay; day += 1) {
      const weekday = new Date(day * DAY_MS).getUTCDay(); // the Korean date's weekday
      if (weekday !== 0 && weekday !== 6) wanted.push(day);
    }
    const closes = new Map<number, number | null>();
    for (let i = 0; i < wanted.length; i += PARALLEL)
      await Promise.all(wanted.slice(i, i + PARALLEL).map(async (day) => closes.set(day, await this.closeOn(day))));
    const traded = [...closes.entries()]
      .filter((entry): entry is [number, number] => entry[1] !== null)
      .map(([day, price]) => ({ at: day * DAY_MS - KST_MS + CLOSE_OFFSET_MS, price }))
      .sort((a, b) => a.at - b.at);
    const points: PricePoint[] = [];
    let next = 0;
    let last: { at: number; price: number } | undefined;
    for (let mark = fromHour; mark <= toHour; mark += 1) {
      const markMs = mark * HOUR_MS;
      while (next < traded.length && traded[next]!.at <= markMs) last = traded[next++];
      if (!last) continue;
      points.push({
        at: new Date(markMs).toISOString(),
        price: last.price,
        tradedAt: new Date(last.at).toISOString(),
        ...(markMs - last.at < HOUR_MS ? {} : { carried: true as const }),
      });
    }
    return points;
  }

  /** The day's close of 금 99.99_1kg (won per gram), or null: no trading that day, or not published yet. */
  private async closeOn(day: number): Promise<number | null> {
    if (this.days.has(day)) return this.days.get(day)!;
    if ((this.unpublished.get(day) ?? 0) > this.now()) return null;
    let asking = this.asking.get(day);
    if (!asking) {
      asking = this.fetchClose(day).finally(() => this.asking.delete(day));
      this.asking.set(day, asking);
    }
    return asking;
  }

  private async fetchClose(day: number): Promise<number | null> {
    const { status, body } = await requestProvider<unknown>(this.http, 'GET', `/gen/gold_bydd_trd?basDd=${basDd(day)}`);
    if (status === 401 || status === 403)
      throw new ProviderUnavailable(
        `the KRX Open API refused our key (${status}): check GOLD_PRICE_AUTH_KEY and its approval for 금시장 일별매매정보`,
        { status },
      );
    if (status !== 200) throw new ProviderUnavailable(`the KRX Open API answered ${status}`, { status });
    const answer = expectAnswer(KrxGoldAnswer, body, `the KRX gold market of ${basDd(day)}`);
    const row = answer.OutBlock_1.find((r) => GOLD_CODES.has(r.ISU_CD.trim()));
    if (row && row.BAS_DD.replace(/\D/g, '') !== basDd(day))
      throw new ProviderAnswerInvalid(
        `the KRX Open API answered ${row.BAS_DD} to a request for ${basDd(day)}`,
        JSON.stringify(row),
      );
    const close = row ? Number(row.TDD_CLSPRC.replace(/,/g, '')) : null;
    if (close !== null && !(Number.isFinite(close) && close > 0))
      throw new ProviderAnswerInvalid(`the KRX gold close of ${basDd(day)} is ${row!.TDD_CLSPRC}`, JSON.stringify(row));
    // A day is published the next morning: before that (and for today) it answers no row, which is not kept.
    if (row || day < kstDay(this.now()) - 1) {
      if (this.days.size >= MAX_KEPT_DAYS) this.days.delete(this.days.keys().next().value!);
      this.days.set(day, close);
    } else {
      // Today, or yesterday before it is published: asked again in a while, not at every chart.
      for (const [kept, until] of this.unpublished) if (until <= this.now()) this.unpublished.delete(kept);
      this.unpublished.set(day, this.now() + UNPUBLISHED_RETRY_MS);
    }
    return close;
  }
}
