import { Context } from '@temporalio/activity';
import type { TransferKeys, SolanaWallets } from '../integrations/custody/key-vault';
import type { SolanaFaucet } from '../integrations/solana';
import type { NetworkRegistry } from '../platform/networks';
import type { CustodyKeyInput, CustodyKeyOutcome } from '../workflows/messages';

export interface CustodyActivityDeps {
  transferKeys: TransferKeys;
  solanaWallets: SolanaWallets;
  networks: NetworkRegistry;
  faucet: SolanaFaucet;
}

/**
 * Creates the keys the service holds for a user. Only the worker has KEY_ENCRYPTION_KEY, so only here can a key be
 * sealed (created) or opened (signing, in the transfer activities). Each call is idempotent: a key is made once.
 */
export const createCustodyActivities = ({ transferKeys, solanaWallets, networks, faucet }: CustodyActivityDeps) => ({
  async openCustodyKey(input: CustodyKeyInput): Promise<CustodyKeyOutcome> {
    if (input.kind === 'evm-transfer-key') return transferKeys.open(input.userId);
    if (input.kind === 'evm-transfer-key-rotation') return transferKeys.rotate(input.userId, input.replacing!);
    const opened = await solanaWallets.open(input.userId);
    const network = input.networkId ? networks.solana(input.networkId) : undefined;
    if (network?.faucetUrl) {
      // Development clusters only, and a convenience: the faucet funds an address once (so a retry asking again is
      // harmless), and a faucet that does not answer leaves the wallet open, unfunded.
      try {
        await faucet.fund(network.faucetUrl, opened.address);
      } catch (error) {
        Context.current().log.warn('the faucet did not fund the new wallet', {
          networkId: network.networkId,
          error: (error as Error).message,
        });
      }
    }
    return opened;
  },
});

export type CustodyActivities = ReturnType<typeof createCustodyActivities>;
