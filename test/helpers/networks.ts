import { NetworkRegistry } from '../../platform/networks';

/**
 * One EVM network (ETHEREUM, chain 1) at addresses no test reaches: for code that reads the registry's settings
 * and never calls the chain.
 */
export const unreachableEthereumJson = (tokens?: Record<string, { address: string; decimals: number }>) =>
  JSON.stringify({
    ETHEREUM: {
      kind: 'evm',
      chainId: 1,
      rpcUrl: 'http://127.0.0.1:1',
      entryPoint: '0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108',
      bundlerUrl: 'http://127.0.0.1:2/rpc',
      accountFactory: '0x0000000000000000000000000000000000000001',
      paymaster: '0x0000000000000000000000000000000000000002',
      didRegistry: '0x0000000000000000000000000000000000000004',
      ...(tokens ? { tokens } : {}),
    },
  });

export const unreachableEthereum = (tokens?: Record<string, { address: string; decimals: number }>) =>
  NetworkRegistry.fromJson(unreachableEthereumJson(tokens));
