import { gunzipSync } from 'node:zlib';
import {
  encodeStatusList,
  newListParameters,
  statusIndex,
  STATUS_LIST_LENGTH,
} from '../../integrations/credentials/status-list';

describe('status list positions and encoding', () => {
  it('hands out every position of a list exactly once, in an order that is not the issuance order', () => {
    for (let round = 0; round < 3; round += 1) {
      const list = { length: STATUS_LIST_LENGTH, ...newListParameters() };
      const seen = new Uint8Array(STATUS_LIST_LENGTH);
      for (let n = 0; n < STATUS_LIST_LENGTH; n += 1) seen[statusIndex(list, n)]! += 1;
      expect(seen.every((count) => count === 1)).toBe(true);
      const first = [0, 1, 2, 3].map((n) => statusIndex(list, n));
      expect(first).not.toEqual([0, 1, 2, 3].map((n) => (first[0]! + n) % STATUS_LIST_LENGTH));
    }
  });

  it('encodes bit n as the n-th bit from the left (W3C Bitstring Status List 3.2), gzip and base64url with the u prefix', () => {
    const encoded = encodeStatusList([0, 9, STATUS_LIST_LENGTH - 1]);
    expect(encoded).toMatch(/^u[A-Za-z0-9_-]+$/);
    const bits = gunzipSync(Buffer.from(encoded.slice(1), 'base64url'));
    expect(bits.length).toBe(STATUS_LIST_LENGTH / 8);
    expect([bits[0], bits[1], bits[bits.length - 1]]).toEqual([0x80, 0x40, 0x01]);
    expect(bits.subarray(2, bits.length - 1).every((b) => b === 0)).toBe(true);
    expect(() => encodeStatusList([STATUS_LIST_LENGTH])).toThrow(RangeError);
    expect(() => encodeStatusList([-1])).toThrow(RangeError);
  });
});
