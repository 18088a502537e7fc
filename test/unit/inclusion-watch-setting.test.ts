import { Bundlers } from '../../integrations/evm/bundlers';
import { INCLUSION_WATCH_MS } from '../../integrations/evm/inclusion-watch';
import { ChainProviders } from '../../integrations/evm/smart-account';
import { NetworkRegistry } from '../../platform/networks';
import { unreachableEthereumJson } from '../helpers/networks';

/** NETWORKS.<id>.inclusionWatchMs: how often a network's inclusion watch reads the head, checked and applied. */
describe("a network's inclusion watch interval", () => {
  const registry = (extra: Record<string, unknown>) => {
    const json = JSON.parse(unreachableEthereumJson()) as { ETHEREUM: Record<string, unknown> };
    return NetworkRegistry.fromJson(JSON.stringify({ ETHEREUM: { ...json.ETHEREUM, ...extra } }));
  };
  const providers = new ChainProviders(1000);
  afterAll(() => providers.destroy());

  it('is the network setting when given, and one call in 250 ms without', () => {
    expect(new Bundlers(registry({ inclusionWatchMs: 1200 }), providers).inclusion('ETHEREUM').intervalMs).toBe(1200);
    const watch = new Bundlers(registry({}), providers).inclusion('ETHEREUM');
    expect([watch.intervalMs, INCLUSION_WATCH_MS]).toEqual([250, 250]);
  });

  it('refuses a setting out of its bounds or not a whole number of milliseconds', () => {
    for (const bad of [5, 60_001, 12.5, '50'])
      expect(() => registry({ inclusionWatchMs: bad })).toThrow(/inclusionWatchMs/);
  });
});
