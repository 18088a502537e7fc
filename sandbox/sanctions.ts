import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Router from '@koa/router';

const SNAPSHOT_DIR = join(__dirname, '..', 'data', 'ofac-sdn');
/** The date of the snapshot in data/ofac-sdn (its README). */
export const SNAPSHOT_DATE = '2024-09-27';

/** The snapshot's addresses: asset tag -> addresses (data/ofac-sdn/<ASSET>.txt, one a line). */
export function snapshotEntries(): Array<{ address: string; asset: string }> {
  return readdirSync(SNAPSHOT_DIR)
    .filter((f) => f.endsWith('.txt'))
    .flatMap((file) =>
      readFileSync(join(SNAPSHOT_DIR, file), 'utf8')
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)
        .map((address) => ({ address, asset: file.replace(/\.txt$/, '') })),
    );
}

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * An SDN advanced XML of these entries, in the shape of the Treasury's file (the parts the service reads: DateOfIssue,
 * the FeatureType reference values, and one DistinctParty a listed address with its Feature and VersionDetail).
 */
export function sdnAdvancedXml(date: string, entries: Array<{ address: string; asset: string }>): string {
  const assets = [...new Set(entries.map((e) => e.asset))].sort();
  const typeId = (asset: string) => String(344 + assets.indexOf(asset));
  const [year, month, day] = date.split('-').map(Number);
  const parties = entries
    .map(
      (e, i) => `    <DistinctParty FixedRef="${30000 + i}">
      <Profile ID="${30000 + i}" PartySubTypeID="3">
        <Feature ID="${90000 + i}" FeatureTypeID="${typeId(e.asset)}">
          <FeatureVersion ReliabilityID="1" ID="${90000 + i}">
            <VersionDetail DetailTypeID="1432">${escape(e.address)}</VersionDetail>
          </FeatureVersion>
        </Feature>
      </Profile>
    </DistinctParty>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="utf-8"?>
<Sanctions xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns="https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/ADVANCED_XML">
  <DateOfIssue><Year>${year}</Year><Month>${month}</Month><Day>${day}</Day></DateOfIssue>
  <ReferenceValueSets>
    <FeatureTypeValues>
      <FeatureType ID="8" FeatureTypeGroupID="1">Nationality Country</FeatureType>
${assets.map((a) => `      <FeatureType ID="${typeId(a)}" FeatureTypeGroupID="1">Digital Currency Address - ${escape(a)}</FeatureType>`).join('\n')}
    </FeatureTypeValues>
  </ReferenceValueSets>
  <DistinctParties>
${parties}
  </DistinctParties>
</Sanctions>
`;
}

/**
 * Stand-ins for sanctions data: the OFAC SDN advanced XML (`GET /ofac/sdn_advanced.xml`, built from the snapshot in
 * data/ofac-sdn; `PUT /ofac/_entries/{address}` lists one more, `DELETE` delists one, `PUT /ofac/_date` changes the
 * list's date) and a screening provider with the shape of Chainalysis' free sanctions API (`GET /api/v1/address/{address}`
 * with X-API-Key; `PUT /chainalysis/_addresses/{address}` makes it name one, `DELETE` forgets it). Slow or down: /_faults/chainalysis.
 */
export function sanctionsRouter(options: { apiKey: string }): Router {
  const entries = new Map(snapshotEntries().map((e) => [`${e.asset}:${e.address}`, e]));
  let date = SNAPSHOT_DATE;
  const identified = new Map<string, { category: string; name: string }>();
  const stats = { listReads: 0, screenings: 0 };
  const router = new Router();
  const key = (address: string) => (/^0x[0-9a-fA-F]{40}$/.test(address) ? address.toLowerCase() : address);

  router.get('/ofac/sdn_advanced.xml', (ctx) => {
    stats.listReads += 1;
    ctx.type = 'application/xml';
    ctx.body = sdnAdvancedXml(date, [...entries.values()]);
  });
  router.put('/ofac/_entries/:address', (ctx) => {
    const asset = String((ctx.request as unknown as { body?: { asset?: string } }).body?.asset ?? 'ETH');
    entries.set(`${asset}:${ctx.params.address}`, { address: ctx.params.address!, asset });
    ctx.body = { listed: ctx.params.address, asset };
  });
  router.delete('/ofac/_entries/:address', (ctx) => {
    const removed = [...entries.keys()].filter((k) => key(entries.get(k)!.address) === key(ctx.params.address!));
    for (const k of removed) entries.delete(k);
    ctx.status = removed.length ? 204 : 404;
  });
  router.put('/ofac/_date', (ctx) => {
    const next = String((ctx.request as unknown as { body?: { date?: string } }).body?.date ?? '');
    if (!/^\d{4}-\d{2}-\d{2}$/.test(next)) {
      ctx.status = 400;
      ctx.body = { error: 'date is YYYY-MM-DD' };
      return;
    }
    date = next;
    ctx.body = { date };
  });

  router.get('/api/v1/address/:address', (ctx) => {
    if (ctx.get('x-api-key') !== options.apiKey) {
      ctx.status = 401;
      ctx.body = { message: 'invalid API key' };
      return;
    }
    stats.screenings += 1;
    const found = identified.get(key(ctx.params.address!));
    ctx.body = {
      identifications: found
        ? [
            {
              category: found.category,
              name: found.name,
              description: 'Sandbox identification',
              url: 'https://sandbox.invalid/identification',
            },
          ]
        : [],
    };
  });
  router.put('/chainalysis/_addresses/:address', (ctx) => {
    const body = (ctx.request as unknown as { body?: { category?: string; name?: string } }).body ?? {};
    identified.set(key(ctx.params.address!), {
      category: body.category ?? 'sanctions',
      name: body.name ?? 'SANCTIONS: sandbox entry',
    });
    ctx.body = { address: ctx.params.address, category: body.category ?? 'sanctions' };
  });
  router.delete('/chainalysis/_addresses/:address', (ctx) => {
    ctx.status = identified.delete(key(ctx.params.address!)) ? 204 : 404;
  });
  router.get('/chainalysis/_stats', (ctx) => {
    ctx.body = stats;
  });
  return router;
}
