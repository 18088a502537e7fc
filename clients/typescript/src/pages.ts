/**
 * Every item of a list, page after page (the service's one pagination: docs/api-conventions.md, "Lists"). Give it
 * the list's call for a cursor; it follows `nextCursor` (`next_cursor` on /api/v1) while `hasMore` says so:
 *
 *   for await (const device of pages((cursor) => api.GET('/v1/account/devices', { params: { query: { cursor } } })))
 *     console.log(device.label);
 *
 * A refused page throws with its status and problem; stop early with `break` (no further page is read). `from` starts
 * at a cursor kept from before (the events feed's `nextCursor`, say). A page that names the cursor it was read with
 * as its next one (a cache that ignores the query, say) throws instead of reading it again forever.
 */
type Listed<D> = D extends { status: 'ok'; data: infer E }
  ? Listed<E>
  : D extends { items: Array<infer I> }
    ? I
    : D extends { transactions: Array<infer I> }
      ? I
      : never;

interface AnyPage {
  items?: unknown[];
  transactions?: unknown[];
  nextCursor?: string | null;
  next_cursor?: string | null;
  hasMore?: boolean;
  has_more?: boolean;
}

export async function* pages<D>(
  fetchPage: (cursor: string | undefined) => Promise<{ data?: D; error?: unknown; response: Response }>,
  options: { from?: string } = {},
): AsyncGenerator<Listed<D>, void, undefined> {
  let cursor: string | undefined = options.from;
  for (;;) {
    const answer = await fetchPage(cursor);
    if (answer.data === undefined)
      throw new Error(`list page: ${answer.response.status} ${JSON.stringify(answer.error)}`);
    const body = answer.data as AnyPage & { status?: string; data?: AnyPage };
    const page: AnyPage = body.status === 'ok' && body.data ? body.data : body;
    for (const item of page.items ?? page.transactions ?? []) yield item as Listed<D>;
    const next = page.nextCursor ?? page.next_cursor ?? null;
    if (!(page.hasMore ?? page.has_more) || !next) return;
    if (next === cursor) throw new Error(`list page: the page after cursor ${cursor} names the same cursor again`);
    cursor = next;
  }
}
