import { ApplicationFailure } from '@temporalio/activity';
import type { EvmNetwork, NetworkRegistry } from '../../platform/networks';
import { ChainFailure } from '../../platform/failures';
import type { BundlerClient } from './bundler-client';
import { EntryPointReader } from './entry-point';
import type { ChainProviders } from './smart-account';

/** Told how long each user operation took from the bundler's acceptance to its receipt (the worker's metrics). */
export interface ConfirmationObserver {
  confirmed(networkId: string, seconds: number, outcome: 'success' | 'reverted'): void;
}

/** Per network: the bundler the worker sends user operations to (its bundlerUrl) and the EntryPoint it reads. */
export class Bundlers {
  private readonly readers = new Map<string, EntryPointReader>();

  constructor(
    private readonly networks: NetworkRegistry,
    private readonly providers: ChainProviders,
    readonly observer?: ConfirmationObserver,
  ) {}

  network(networkId: string): EvmNetwork {
    const network = this.networks.get(networkId);
    if (!network)
      throw ApplicationFailure.create({
        type: ChainFailure.UnknownNetwork,
        message: `network ${networkId} is not configured`,
        nonRetryable: true,
      });
    return network;
  }

  for(networkId: string): BundlerClient {
    return this.providers.bundler(this.network(networkId));
  }

  entryPoint(networkId: string): EntryPointReader {
    let reader = this.readers.get(networkId);
    if (!reader) {
      const network = this.network(networkId);
      reader = new EntryPointReader(this.providers.for(network), network.entryPoint);
      this.readers.set(networkId, reader);
    }
    return reader;
  }
}
