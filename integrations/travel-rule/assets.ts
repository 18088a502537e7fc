import { coinOf, type Network } from '../../platform/networks';
import type { TrpAsset } from './trp';

/**
 * How a TRP inquiry names what is sent: Ether by its SLIP-0044 symbol (`{slip0044: "ETH"}`, coin type 60 in
 * satoshilabs/slips slip-0044.md, as TRISA writes it), the other coins by their DTI (ISO 24165, from the DTI
 * Foundation's registry: TRISA's SLIP-0044 table has neither SOL nor MATIC/POL), a token by the DTI the network's
 * settings give it (NETWORKS ... tokens.<SYMBOL>.dti; USDT on Ethereum is 2QWSBDMNC). Undefined when none is known:
 * such a transfer cannot be announced and is refused before anything is signed.
 */
const COINS: Record<string, TrpAsset> = {
  ETH: { slip0044: 'ETH' },
  // DTI Foundation registry: Solana 20J63Z4N3, Polygon's native coin RQWW6J6K0 (docs/providers.md, Travel Rule).
  SOL: { dti: '20J63Z4N3' },
  POL: { dti: 'RQWW6J6K0' },
};

/** Tether USD (ERC-20 0xdAC17F958D2ee523a2206206994597C13D831ec7) in the DTI Foundation's registry. */
export const USDT_ETHEREUM_DTI = '2QWSBDMNC';

export function trpAssetOf(network: Network, token: string): TrpAsset | undefined {
  if (token === coinOf(network).symbol) return COINS[token];
  const dti = network.tokens?.[token]?.dti;
  return dti ? { dti } : undefined;
}

/** An inbound inquiry's asset as we record it: `slip0044:ETH`, `slip0044:60`, `dti:4H95J0R2X`. */
export function assetLabel(asset: unknown): string | undefined {
  if (typeof asset !== 'object' || asset === null) return undefined;
  const { slip0044, dti } = asset as { slip0044?: unknown; dti?: unknown };
  if (typeof dti === 'string' && /^[0-9A-Z]{9}$/.test(dti)) return `dti:${dti}`;
  if ((typeof slip0044 === 'string' && /^[A-Za-z0-9]{1,16}$/.test(slip0044)) || Number.isInteger(slip0044))
    return `slip0044:${String(slip0044)}`;
  return undefined;
}
