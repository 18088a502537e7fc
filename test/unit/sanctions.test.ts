import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  addressKey,
  readSdnAdvancedXml,
  SdnListClient,
  SanctionsScreening,
  ScreeningUnavailable,
  type SanctionsListState,
} from '../../integrations/sanctions';
import { ProviderAnswerInvalid, ProviderUnavailable } from '../../integrations/provider-http';
import { sdnAdvancedXml, snapshotEntries, SNAPSHOT_DATE } from '../../sandbox/sanctions';

const chunksOf = (text: string, size = 997): AsyncIterable<Uint8Array> =>
  Readable.from(
    (function* () {
      const bytes = Buffer.from(text);
      for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
    })(),
  );

const lines = (file: string) =>
  readFileSync(join(__dirname, '..', '..', 'data', 'ofac-sdn', file), 'utf8')
    .split('\n')
    .filter(Boolean);

describe('the SDN advanced XML reader', () => {
  it('reads every digital currency address of the snapshot with its assets and the list date, in chunks cut anywhere', async () => {
    const read = await readSdnAdvancedXml(chunksOf(sdnAdvancedXml(SNAPSHOT_DATE, snapshotEntries())));
    expect(read.listDate).toBe('2024-09-27');
    const expected = new Set([...lines('ETH.txt'), ...lines('USDT.txt'), ...lines('USDC.txt')].map(addressKey));
    expect(new Set(read.addresses.keys())).toEqual(expected);
    // Each address carries the asset tags it is listed under.
    const usdc = lines('USDC.txt').map(addressKey);
    for (const key of usdc) expect(read.addresses.get(key)).toContain('USDC');
    expect(read.addresses.get(addressKey(lines('ETH.txt')[0]!))).toContain('ETH');
    expect(read.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('keys EVM addresses in lower case (checksum case is not part of the address) and others as listed', () => {
    expect(addressKey('0x983a81ca6FB1e441266D2FbcB7D8E530AC2E05A2')).toBe('0x983a81ca6fb1e441266d2fbcb7d8e530ac2e05a2');
    expect(addressKey('TEAqwfMhXLaomXhZ8KeMhx3njGmQEDnsUR')).toBe('TEAqwfMhXLaomXhZ8KeMhx3njGmQEDnsUR');
  });

  it('ignores features that are not digital currency addresses', async () => {
    const xml = sdnAdvancedXml('2025-01-02', [
      { address: '0x1111111111111111111111111111111111111111', asset: 'ETH' },
    ]).replace(
      '</Profile>',
      '<Feature ID="1" FeatureTypeID="8"><FeatureVersion ID="1"><VersionDetail DetailTypeID="1">Iran</VersionDetail></FeatureVersion></Feature></Profile>',
    );
    const read = await readSdnAdvancedXml(chunksOf(xml));
    expect([...read.addresses.keys()]).toEqual(['0x1111111111111111111111111111111111111111']);
    expect(read.listDate).toBe('2025-01-02');
  });

  it('refuses a broken download, a file that is not the list, or one with no address, storing nothing', async () => {
    const whole = sdnAdvancedXml(SNAPSHOT_DATE, snapshotEntries());
    await expect(readSdnAdvancedXml(chunksOf(whole.slice(0, whole.length / 2)))).rejects.toThrow(
      /not well-formed|no digital currency address|DateOfIssue/,
    );
    await expect(readSdnAdvancedXml(chunksOf('<html><body>Service unavailable</body></html>'))).rejects.toThrow(
      /DateOfIssue/,
    );
    await expect(
      readSdnAdvancedXml(
        chunksOf(sdnAdvancedXml('2025-01-02', []).replace('</DistinctParties>', '</DistinctParties>')),
      ),
    ).rejects.toThrow(/no digital currency address/);
  });

  it('expands no entity a hostile file declares (no billion laughs, no external entity)', async () => {
    const hostile = sdnAdvancedXml(SNAPSHOT_DATE, [
      { address: '0x1111111111111111111111111111111111111111', asset: 'ETH' },
    ])
      .replace(
        '<?xml version="1.0" encoding="utf-8"?>',
        '<?xml version="1.0"?><!DOCTYPE Sanctions [<!ENTITY x SYSTEM "file:///etc/passwd"><!ENTITY a "0x2222222222222222222222222222222222222222">]>',
      )
      .replace('0x1111111111111111111111111111111111111111', '&a;');
    await expect(readSdnAdvancedXml(chunksOf(hostile))).rejects.toThrow();
  });
});

describe("the SDN list's download (SdnListClient, over HTTP)", () => {
  let server: Server;
  let base: string;
  let answer: (res: import('node:http').ServerResponse) => void;
  beforeAll(async () => {
    server = createServer((_req, res) => answer(res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const client = (maxBytes = 10_000_000, timeoutMs = 5000) =>
    new SdnListClient({ url: `${base}/sdn_advanced.xml`, timeoutMs, maxBytes });
  const xml = sdnAdvancedXml(SNAPSHOT_DATE, snapshotEntries());

  it('reads the list as it arrives', async () => {
    answer = (res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(xml);
    };
    const read = await client().read();
    expect(read.listDate).toBe('2024-09-27');
    expect(read.addresses.size).toBeGreaterThan(0);
  });

  it('follows no redirect, reads no file past its cap, and gives up on one that hangs', async () => {
    answer = (res) => {
      res.writeHead(302, { location: `${base}/elsewhere.xml` });
      res.end();
    };
    await expect(client().read()).rejects.toThrow(ProviderAnswerInvalid);
    await expect(client().read()).rejects.toThrow(/redirect \(302\), not followed/);
    answer = (res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(xml);
    };
    await expect(client(1000).read()).rejects.toThrow(/runs past the 1000 bytes read/);
    answer = () => undefined; // never answers
    await expect(client(10_000_000, 300).read()).rejects.toThrow(ProviderUnavailable);
    answer = (res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.write(xml.slice(0, 200)); // starts, then stalls: the whole download is within the timeout
    };
    await expect(client(10_000_000, 300).read()).rejects.toThrow(/could not be read/);
    answer = (res) => {
      res.writeHead(503);
      res.end();
    };
    await expect(client().read()).rejects.toThrow(/answered HTTP 503/);
  });
});

describe('sanctions screening', () => {
  const listed = new Map([['0x983a81ca6fb1e441266d2fbcb7d8e530ac2e05a2', ['USDC']]]);
  const fresh: SanctionsListState = { listDate: '2024-09-27', refreshedAt: new Date(), addressCount: 1 };
  const screening = (
    state: SanctionsListState | null,
    provider?: { screen(address: string): Promise<{ listed: false } | { listed: true; categories: string[] }> },
  ) =>
    new SanctionsScreening({
      read: async (key) => ({ state, assets: listed.get(key) ?? null }),
      provider,
      maxListAgeMs: 48 * 3600_000,
    });
  const clean = { screen: async () => ({ listed: false as const }) };

  it('finds a listed address whatever its case, naming only the programme', async () => {
    expect(await screening(fresh, clean).screen('0x983A81CA6FB1E441266D2FBCB7D8E530AC2E05A2')).toEqual({
      listed: true,
      source: 'ofac-sdn',
      programme: 'OFAC SDN',
    });
    expect(await screening(fresh, clean).screen('0x1111111111111111111111111111111111111111')).toEqual({
      listed: false,
    });
  });

  it('asks the provider for what the list does not name', async () => {
    const provider = {
      screen: async (a: string) =>
        a.endsWith('1111') ? { listed: true as const, categories: ['sanctions'] } : { listed: false as const },
    };
    expect(await screening(fresh, provider).screen('0x1111111111111111111111111111111111111111')).toEqual({
      listed: true,
      source: 'screening-provider',
      programme: 'SANCTIONS',
    });
  });

  it('fails closed: no list, a list too old, a provider down or refusing', async () => {
    const address = '0x1111111111111111111111111111111111111111';
    await expect(screening(null, clean).screen(address)).rejects.toMatchObject({ reason: 'list-missing' });
    await expect(
      screening({ ...fresh, refreshedAt: new Date(Date.now() - 49 * 3600_000) }, clean).screen(address),
    ).rejects.toMatchObject({ reason: 'list-stale' });
    const down = {
      screen: async () => {
        throw new ProviderUnavailable('timeout');
      },
    };
    await expect(screening(fresh, down).screen(address)).rejects.toBeInstanceOf(ScreeningUnavailable);
    const refusing = {
      screen: async () => {
        throw new Error('provider rejected /api/v1/address with 401');
      },
    };
    await expect(screening(fresh, refusing).screen(address)).rejects.toMatchObject({ reason: 'provider' });
    // A listed address is refused even while the provider is down: the list needs no provider.
    expect(await screening(fresh, down).screen('0x983a81ca6fb1e441266d2fbcb7d8e530ac2e05a2')).toMatchObject({
      listed: true,
    });
  });
});
