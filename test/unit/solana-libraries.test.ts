/**
 * Solana's libraries load at the first call that needs them (integrations/solana.ts): a load that fails once (a file
 * limit reached while the process opens many sockets, say) must not leave every later Solana call failing until the
 * worker restarts.
 */
let failNext = true;
jest.mock('@solana/kit', () => {
  if (failNext) {
    failNext = false;
    throw new Error('EMFILE: too many open files');
  }
  return jest.requireActual('@solana/kit');
});

import { SolanaChain, addressBytes } from '../../integrations/solana';
import type { SolanaNetwork } from '../../platform/networks';

describe("Solana's libraries loaded by use", () => {
  it('are loaded again by the next call after a load that failed', async () => {
    const chain = new SolanaChain({ networkId: 'SOLANA', rpcUrl: 'http://127.0.0.1:1' } as SolanaNetwork, 1_000);
    await expect(chain.rpc()).rejects.toThrow('EMFILE');
    const rpc = await chain.rpc();
    expect(typeof rpc.getSlot).toBe('function');
    expect(await chain.rpc()).toBe(rpc);
    expect((await addressBytes('11111111111111111111111111111111')).length).toBe(32);
  });
});
