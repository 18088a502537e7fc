import { startAnvil, ensureChainContracts } from '../dev/chains';
import { seedPools } from '../dev/uniswap';
import { priceAtMs } from '../sandbox/upbit-quotation';
(async () => {
  const chain = await startAnvil({ chainId: 31338, port: 18545 });
  try {
    const c = await ensureChainContracts(chain.rpcUrl);
    console.log('ETH', priceAtMs('ETH', Date.now()), 'BTC', priceAtMs('BTC', Date.now()));
    await seedPools(chain.rpcUrl, 'POLYGON', c.uniswap, c.usdt, (s) => priceAtMs(s, Date.now()), console.log);
  } catch (e) { console.error((e as Error).message.slice(0, 300)); } finally { await chain.stop(); }
})();
