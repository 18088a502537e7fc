import { coinOf, type Network } from '../../platform/networks';
import type { TrpAsset } from './trp';

/**
 * How a TRP inquiry names what is sent: Ethereum mainnet's Ether by its SLIP-0044 symbol (`{slip0044: "ETH"}`, coin
 * type 60 in satoshilabs/slips slip-0044.md, as TRISA writes it), Polygon's coin and Solana's by their DTI (ISO 24165,
 * from the DTI Foundation's registry: TRISA's SLIP-0044 table has neither SOL nor MATIC/POL), another chain's coin by
 * the `coinDti` its settings give (a layer 2's Ether is not mainnet Ether: never announced as it), a token by the DTI
 * its settings give (NETWORKS ... tokens.<SYMBOL>.dti; USDT on Ethereum is 2QWSBDMNC). Undefined when none is known:
 * such a transfer cannot be announced and is refused before anything is signed.
 */
const ETHER: TrpAsset = { slip0044: 'ETH' };
/** Polygon's coin (the registry's record still says MATIC). */
export const POLYGON_DTI = 'RQWW6J6K0';
const COIN_DTIS: Record<number, string> = { 137: POLYGON_DTI }; // Polygon PoS mainnet
const SOLANA_DTI = '20J63Z4N3';

/** Tether USD (ERC-20 0xdAC17F958D2ee523a2206206994597C13D831ec7) in the DTI Foundation's registry. */
export const USDT_ETHEREUM_DTI = '2QWSBDMNC';
/** Ether's DTI (the registry's record of Ethereum's coin), for settings that name a chain's coin as Ether. */
export const ETHER_DTI = 'X9J9K872S';

export function trpAssetOf(network: Network, token: string): TrpAsset | undefined {
  if (token === coinOf(network).symbol) {
    if (network.kind === 'solana') return { dti: SOLANA_DTI };
    if (network.coinDti) return network.coinDti === ETHER_DTI ? ETHER : { dti: network.coinDti };
    if (network.chainId === 1 && token === 'ETH') return ETHER;
    const dti = COIN_DTIS[network.chainId];
    return dti ? { dti } : undefined;
  }
  const dti = network.tokens?.[token]?.dti;
  return dti ? { dti } : undefined;
}

/** SLIP-0044 coin types by number, for a counterpart that writes the number ({slip0044: 60}). */
const SLIP0044_SYMBOLS: Record<string, string> = { '0': 'BTC', '60': 'ETH', '501': 'SOL', '966': 'MATIC' };

/**
 * An inquiry's asset as we record and compare it: `slip0044:ETH` (a number written as its symbol, a symbol in upper
 * case), `dti:4H95J0R2X`; `{}` (TRISA's Bitcoin) is `slip0044:BTC`.
 */
export function assetLabel(asset: unknown): string | undefined {
  if (typeof asset !== 'object' || asset === null) return undefined;
  const { slip0044, dti } = asset as { slip0044?: unknown; dti?: unknown };
  if (typeof dti === 'string' && /^[0-9A-Z]{9}$/.test(dti)) return `dti:${dti}`;
  if (typeof slip0044 === 'string' && /^[A-Za-z0-9]{1,16}$/.test(slip0044))
    return `slip0044:${SLIP0044_SYMBOLS[slip0044] ?? slip0044.toUpperCase()}`;
  if (typeof slip0044 === 'number' && Number.isInteger(slip0044))
    return `slip0044:${SLIP0044_SYMBOLS[String(slip0044)] ?? slip0044}`;
  return slip0044 === undefined && dti === undefined ? 'slip0044:BTC' : undefined;
}

/** Every asset a network's accounts can receive, as labels: its coin and its tokens that TRP can name. */
export function assetLabelsOf(network: Network): string[] {
  const symbols = [coinOf(network).symbol, ...Object.keys(network.tokens ?? {})];
  return symbols.flatMap((symbol) => {
    const asset = trpAssetOf(network, symbol);
    return asset ? [assetLabel(asset)!] : [];
  });
}
