import { randomBytes } from 'node:crypto';
import { DataEncryption } from '../../platform/data-encryption';
import { EncryptionCodec } from '../../platform/payload-codec';

describe('DataEncryption', () => {
  const encryption = new DataEncryption(randomBytes(32).toString('base64'));

  it('opens what it sealed, and refuses another associated context or a flipped byte', () => {
    const sealed = encryption.seal(Buffer.from('주민등록증 image bytes'), 'upl_1');
    expect(sealed.toString('utf8')).not.toContain('image bytes');
    expect(encryption.open(sealed, 'upl_1').toString()).toBe('주민등록증 image bytes');
    expect(() => encryption.open(sealed, 'upl_2')).toThrow();
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1]! ^= 1;
    expect(() => encryption.open(tampered, 'upl_1')).toThrow();
  });

  it('derives stable ids and fingerprints that differ by purpose and key', () => {
    expect(encryption.derivedId('pr_1', 'regId')).toBe(encryption.derivedId('pr_1', 'regId'));
    expect(encryption.derivedId('pr_1', 'regId')).not.toBe(encryption.derivedId('pr_2', 'regId'));
    expect(encryption.fingerprint('ci', 'a')).not.toBe(encryption.fingerprint('ci', 'b'));
    const other = new DataEncryption(randomBytes(32).toString('base64'));
    expect(other.derivedId('pr_1', 'regId')).not.toBe(encryption.derivedId('pr_1', 'regId'));
  });

  it('rejects a key that is not 32 bytes', () => {
    expect(() => new DataEncryption(randomBytes(16).toString('base64'))).toThrow('32 bytes');
  });

  it('encrypts Temporal payloads so histories hold no plain text', async () => {
    const codec = new EncryptionCodec(encryption);
    const payload = { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('{"ci":"secret-ci"}') };
    const [encoded] = await codec.encode([payload]);
    expect(Buffer.from(encoded!.data!).toString()).not.toContain('secret-ci');
    const [decoded] = await codec.decode([encoded!]);
    expect(Buffer.from(decoded!.data!).toString()).toBe('{"ci":"secret-ci"}');
  });
});
