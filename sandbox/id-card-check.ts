import Router from '@koa/router';

/**
 * Stand-in for an ID-card authenticity service (in Korea the issuing authority answers whether a card's number and
 * issue date are valid and current: 행정안전부 주민등록증 진위확인, 도로교통공단 운전면허 진위확인). It holds no register of
 * every card, so a card is "valid" when it is consistent (a resident number whose first six digits are the birth date,
 * an issue date between the birth date and today) and not reported; `POST /idcheck/v1/_reports` reports one lost.
 */
export function idCardCheckRouter(options: { apiKey: string }): Router {
  const reported = new Map<string, string>();
  const stats = { checks: 0 };
  const router = new Router({ prefix: '/idcheck/v1' });
  const digits = (value: unknown): string => String(value ?? '').replace(/\D/g, '');

  router.post('/verifications', (ctx) => {
    if (ctx.get('authorization') !== `Bearer ${options.apiKey}`) {
      ctx.status = 401;
      ctx.body = { error: 'invalid_api_key' };
      return;
    }
    const body = (ctx.request as unknown as { body?: Record<string, unknown> }).body ?? {};
    const { idCardType, name, birthDate, issueDate } = body as Record<string, string | undefined>;
    const number = digits(body.idNumber);
    if (!idCardType || !name || !birthDate || !number || !issueDate) {
      ctx.status = 400;
      ctx.body = { error: 'idCardType, name, birthDate, idNumber and issueDate are required' };
      return;
    }
    stats.checks += 1;
    const born = /^\d{4}-\d{2}-\d{2}$/.test(birthDate) ? birthDate : '';
    const issued = Date.parse(`${issueDate}T00:00:00Z`);
    let result: string;
    if (reported.has(number)) result = reported.get(number)!;
    else if (
      idCardType === 'resident_id' &&
      (number.length !== 13 || number.slice(0, 6) !== born.replace(/-/g, '').slice(2))
    )
      result = 'mismatch';
    else if (!Number.isFinite(issued) || issued > Date.now() || (born && issued < Date.parse(`${born}T00:00:00Z`)))
      result = 'not_issued';
    else result = 'valid';
    ctx.body = { result, checkedAt: new Date().toISOString() };
  });

  /** Sandbox administration: report a card lost (or stolen); its checks answer that from now on. */
  router.post('/_reports', (ctx) => {
    const body = (ctx.request as unknown as { body?: Record<string, unknown> }).body ?? {};
    const number = digits(body.idNumber);
    if (!number) {
      ctx.status = 400;
      ctx.body = { error: 'idNumber is required' };
      return;
    }
    reported.set(number, body.status === 'reported_stolen' ? 'reported_stolen' : 'reported_lost');
    ctx.status = 201;
    ctx.body = { idNumber: number, result: reported.get(number) };
  });

  router.get('/_stats', (ctx) => {
    ctx.body = stats;
  });
  return router;
}
