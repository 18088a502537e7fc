import Router from '@koa/router';

/**
 * The KRX Open API's gold market (일반상품 > 금시장 일별매매정보) as it answers, under /krx/svc/apis:
 * `GET /krx/svc/apis/gen/gold_bydd_trd?basDd=YYYYMMDD` with our key in `AUTH_KEY`, answering the day's rows
 * (`{"OutBlock_1": [{BAS_DD, ISU_CD, ISU_NM, TDD_CLSPRC, CMPPREVDD_PRC, FLUC_RT, TDD_OPNPRC, TDD_HGPRC, TDD_LWPRC,
 * ACC_TRDVOL, ACC_TRDVAL}]}`, every value a string): 금 99.99_1kg (ISU_CD 04020000) and 미니금 99.99_100g, both per gram.
 * Weekends and days not yet published (today, in Korea) answer no row. The close follows a deterministic daily
 * series, goldCloseOn, so tests can check prices by hand.
 */
const DAY_MS = 24 * 3_600_000;
const KST_MS = 9 * 3_600_000;
const BASE = 190_000;

/** The Korean day number (days since 1970-01-01 in Korea) of a YYYYMMDD date. */
const dayOf = (basDd: string) => Date.UTC(+basDd.slice(0, 4), +basDd.slice(4, 6) - 1, +basDd.slice(6, 8)) / DAY_MS;

/** The close (won per gram) of 금 99.99_1kg on a Korean day number, or null on a weekend. */
export function goldCloseOn(day: number): number | null {
  const weekday = new Date(day * DAY_MS).getUTCDay();
  if (weekday === 0 || weekday === 6) return null;
  return Math.round(BASE * (1 + 0.03 * Math.sin((2 * Math.PI * day) / 9) + 0.01 * Math.sin((2 * Math.PI * day) / 3)));
}

export function krxGoldRouter(options: { authKey: string; now?: () => number }): Router {
  const now = options.now ?? Date.now;
  const router = new Router({ prefix: '/krx/svc/apis' });
  router.get(['/gen/gold_bydd_trd', '/gen/gold_bydd_trd.json'], (ctx) => {
    if (ctx.get('AUTH_KEY') !== options.authKey) {
      ctx.status = 401;
      ctx.body = { respCode: '401', respMsg: 'Unauthorized API Call' };
      return;
    }
    const basDd = String(ctx.query.basDd ?? '');
    if (!/^\d{8}$/.test(basDd)) {
      ctx.status = 400;
      ctx.body = { respCode: '400', respMsg: 'basDd is YYYYMMDD' };
      return;
    }
    const day = dayOf(basDd);
    const today = Math.floor((now() + KST_MS) / DAY_MS);
    const close = day < today ? goldCloseOn(day) : null;
    const previous = (() => {
      for (let d = day - 1; d > day - 10; d -= 1) if (goldCloseOn(d) !== null) return goldCloseOn(d)!;
      return close ?? BASE;
    })();
    const row = (code: string, name: string, price: number, volume: number) => ({
      BAS_DD: basDd,
      ISU_CD: code,
      ISU_NM: name,
      TDD_CLSPRC: String(price),
      CMPPREVDD_PRC: String(price - previous),
      FLUC_RT: (((price - previous) / previous) * 100).toFixed(2),
      TDD_OPNPRC: String(previous),
      TDD_HGPRC: String(Math.max(price, previous)),
      TDD_LWPRC: String(Math.min(price, previous)),
      ACC_TRDVOL: String(volume),
      ACC_TRDVAL: String(price * volume),
    });
    ctx.body = {
      OutBlock_1:
        close === null
          ? []
          : [
              row('04020000', '금 99.99_1kg', close, 120_000),
              row('04020100', '미니금 99.99_100g', close + 150, 30_000),
            ],
    };
  });
  return router;
}
