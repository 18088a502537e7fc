import { ApplicationFailure } from '@temporalio/activity';
import type { EvmNetwork, NetworkRegistry } from '../../platform/networks';
import { ChainFailure } from '../../platform/failures';
import type { BundlerClient } from './bundler-client';
import { EntryPointReader } from './entry-point';
import { InclusionWatch } from './inclusion-watch';
import type { ChainProviders } from './smart-account';

/** Told how long each user operation took from the bundler's acceptance to its receipt (the worker's metrics). */
export interface ConfirmationObserver {
  confirmed(networkId: string, seconds: number, outcome: 'success' | 'reverted'): void;
  /** A network's inclusion watch could not read the chain (the waits fall back on their own timers meanwhile). */
  inclusionWatchFailed?(networkId: string): void;
}

/** Per network: the bundler the worker sends user operations to (its bundlerUrl) and the EntryPoint it reads. */
export class Bundlers {
  private readonly readers = new Map<string, EntryPointReader>();
  private readonly watches = new Map<string, InclusionWatch>();

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

  /** The network's inclusion watch: one per process, shared by every wait for a user operation there. */
  inclusion(networkId: string): InclusionWatch {
    let watch = this.watches.get(networkId);
    if (!watch) {
      const network = this.network(networkId);
      watch = new InclusionWatch(
        this.providers.for(network),
        network.entryPoint,
        () => this.observer?.inclusionWatchFailed?.(networkId),
        network.inclusionWatchMs,
      );
      this.watches.set(networkId, watch);
    }
    return watch;
  }
}
