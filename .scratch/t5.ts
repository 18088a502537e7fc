import { startAnvil, ensureChainContracts } from '../dev/chains';
import { seedPools } from '../dev/uniswap';
import { priceAtMs } from '../sandbox/upbit-quotation';
(async () => {
  const run = async (chainId: number, port: number, id: 'ETHEREUM' | 'POLYGON') => {
    const chain = await startAnvil({ chainId, port });
    try {
      const c = await ensureChainContracts(chain.rpcUrl);
      await seedPools(chain.rpcUrl, id, c.uniswap, c.usdt, (s) => priceAtMs(s, Date.now()), (l) => console.log(id, l));
    } catch (e) { console.error(id, (e as Error).message.slice(0, 200)); } finally { await chain.stop(); }
  };
  await Promise.all([run(31337, 18545, 'ETHEREUM'), run(31338, 18546, 'POLYGON')]);
})();
