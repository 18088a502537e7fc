import { Wallet } from 'ethers';
import { ApplicationFailure } from '@temporalio/activity';
import type { EvmNetwork, NetworkRegistry } from '../../platform/networks';
import { ChainFailure } from '../../platform/failures';
import { Bundler, type ConfirmationObserver } from './bundler';
import type { ChainProviders } from './smart-account';
import type { NonceLock } from './nonce-lock';

/** One bundler per network for the worker's key (a bundler tracks its own transaction nonces). */
export class Bundlers {
  private readonly bundlers = new Map<string, Bundler>();
  readonly beneficiary: string;

  constructor(
    private readonly networks: NetworkRegistry,
    private readonly providers: ChainProviders,
    private readonly privateKey: string,
    private readonly nonces: NonceLock,
    private readonly observer?: ConfirmationObserver,
  ) {
    this.beneficiary = new Wallet(privateKey).address;
  }

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

  for(networkId: string): Bundler {
    let bundler = this.bundlers.get(networkId);
    if (!bundler) {
      const network = this.network(networkId);
      bundler = new Bundler(
        new Wallet(this.privateKey, this.providers.for(network)),
        network.entryPoint,
        this.nonces,
        this.observer && { networkId, observer: this.observer },
      );
      this.bundlers.set(networkId, bundler);
    }
    return bundler;
  }
}
