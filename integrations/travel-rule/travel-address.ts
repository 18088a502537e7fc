import { createHash } from 'node:crypto';
import { getBase58Decoder, getBase58Encoder } from '@solana/kit';

/**
 * TRP Travel Addresses (TRP 3.1.0 on): `ta` + base58 (Bitcoin's alphabet) of the inquiry URL without its scheme,
 * followed by the first 4 bytes of its double SHA-256. The URL carries `t=i` in its query, and a Travel Address always
 * names an https URL. A beneficiary's provider gives its user one; the originator's provider decodes it to the URL it
 * sends the inquiry to. The same algorithm as TRISA's `pkg/openvasp/traddr`, whose test vectors our contract test uses.
 */
export class TravelAddressInvalid extends Error {}

const base58 = { toText: getBase58Decoder(), toBytes: getBase58Encoder() };
const checksumOf = (bytes: Uint8Array) =>
  createHash('sha256').update(createHash('sha256').update(bytes).digest()).digest().subarray(0, 4);

/** The Travel Address of an https URL (its query gains `t=i` when it lacks it). */
export function encodeTravelAddress(url: string): string {
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:') throw new TravelAddressInvalid('a Travel Address names an https URL');
  if (parsed.searchParams.get('t') !== 'i') parsed.searchParams.set('t', 'i');
  const text = parsed.toString().slice('https://'.length);
  const bytes = Buffer.from(text, 'utf8');
  return `ta${base58.toText.decode(Buffer.concat([bytes, checksumOf(bytes)]))}`;
}

/** The https URL a Travel Address names; TravelAddressInvalid for a bad prefix, alphabet, checksum or URL. */
export function decodeTravelAddress(address: string): string {
  if (!/^ta[1-9A-HJ-NP-Za-km-z]{6,600}$/.test(address))
    throw new TravelAddressInvalid('a Travel Address is "ta" followed by base58 text');
  const bytes = Buffer.from(base58.toBytes.encode(address.slice(2)));
  if (bytes.length < 5) throw new TravelAddressInvalid('too short for a Travel Address');
  const body = bytes.subarray(0, -4);
  if (!checksumOf(body).equals(bytes.subarray(-4)))
    throw new TravelAddressInvalid('the Travel Address checksum does not match (mistyped?)');
  const text = body.toString('utf8');
  let url: URL;
  try {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) throw new Error('scheme');
    url = new URL(`https://${text}`);
  } catch {
    throw new TravelAddressInvalid('a Travel Address names a URL without its scheme');
  }
  if (url.searchParams.get('t') !== 'i') throw new TravelAddressInvalid('a Travel Address URL carries t=i');
  if (url.username || url.password) throw new TravelAddressInvalid('a Travel Address URL carries no credentials');
  return url.toString();
}
