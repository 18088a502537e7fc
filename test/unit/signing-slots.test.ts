import { Wallet, TypedDataEncoder, keccak256, toUtf8Bytes, hexlify } from 'ethers';
import {
  recoverSlotSigner,
  slotDigest,
  SlotSignatureError,
  keyUriOf,
  addressOfKeyUri,
} from '../../integrations/evm/signing-slots';
import {
  MERKLE_ROOT_DOMAIN,
  MERKLE_ROOT_TYPES,
  merkleRootDigest,
  userOperationMerkleTree,
} from '../../integrations/evm/user-operation';

// Known-answer vectors: anvil's second development key (address 0x7099…79C8, published with anvil and Hardhat),
// the UTF-8 payload "wallet-service signing slot", and RFC 6979 deterministic signatures recorded from ethers.
const signer = new Wallet('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const payload = hexlify(toUtf8Bytes('wallet-service signing slot'));
const VECTORS = {
  address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  keccakDigest: '0x28a3e0f2ab42f20e3ed7198a11306204347bda2ac6f6bd765813ae2e82c9b3c6',
  keccakSignature:
    '0x590707701eb05e7b5ee29f0e4bba7e77155ed4ddc7237c9297e21f8d56a718771fbc841f829913e96bb97910ff625e375f415bd1ac2d467d03b409971b4157391b',
  personalDigest: '0xb34771ef78da2e575ac4b1fe7dcbafd427e23eca3ff443ce63a512ed1aa0b0aa',
  personalSignature:
    '0x4f06d12fde36c0478754da8715f2cfb041392260fcca53a98bd26eb515d731175baa96c068a6364629d149ded2d8a2e94ae29921601dbae744672f070e5b20b41b',
};

describe('signing slot algorithms', () => {
  it('ecdsa-secp256k1-keccak: known answer, and a raw-key signature from ethers verifies', () => {
    expect(signer.address).toBe(VECTORS.address);
    expect(slotDigest('ecdsa-secp256k1-keccak', payload)).toBe(VECTORS.keccakDigest);
    expect(recoverSlotSigner('ecdsa-secp256k1-keccak', payload, VECTORS.keccakSignature)).toBe(VECTORS.address);
    const signature = signer.signingKey.sign(keccak256(payload)).serialized;
    expect(signature).toBe(VECTORS.keccakSignature);
    expect(recoverSlotSigner('ecdsa-secp256k1-keccak', payload, signature)).toBe(signer.address);
  });

  it('eip191-personal-sign: matches ethers Wallet.signMessage (personal_sign)', async () => {
    expect(slotDigest('eip191-personal-sign', payload)).toBe(VECTORS.personalDigest);
    expect(recoverSlotSigner('eip191-personal-sign', payload, VECTORS.personalSignature)).toBe(VECTORS.address);
    const signature = await signer.signMessage(toUtf8Bytes('wallet-service signing slot'));
    expect(signature).toBe(VECTORS.personalSignature);
    expect(recoverSlotSigner('eip191-personal-sign', payload, signature)).toBe(signer.address);
    expect(recoverSlotSigner('ecdsa-secp256k1-keccak', payload, signature)).not.toBe(signer.address);
  });

  it('eip712-erc4337-merkleroot-v1: the payload is the typed-data digest ethers signTypedData signs', async () => {
    const root = (await userOperationMerkleTree([keccak256('0x01'), keccak256('0x02')])).root;
    const digest = merkleRootDigest(root);
    expect(digest).toBe(TypedDataEncoder.hash(MERKLE_ROOT_DOMAIN, MERKLE_ROOT_TYPES, { root }));
    const signature = await signer.signTypedData(MERKLE_ROOT_DOMAIN, MERKLE_ROOT_TYPES, { root });
    expect(recoverSlotSigner('eip712-erc4337-merkleroot-v1', digest, signature)).toBe(signer.address);
  });

  it('eip712-erc4337-userop-v1: refuses a payload that is not a 32-byte digest', () => {
    expect(() => slotDigest('eip712-erc4337-userop-v1', payload)).toThrow(SlotSignatureError);
  });

  it('refuses malformed signatures with a clear error', () => {
    expect(() => recoverSlotSigner('eip191-personal-sign', payload, '0x1234')).toThrow('65 bytes');
    expect(() => recoverSlotSigner('eip191-personal-sign', payload, `0x${'00'.repeat(65)}`)).toThrow(
      SlotSignatureError,
    );
    expect(() => recoverSlotSigner('eip191-personal-sign', 'not hex', `0x${'11'.repeat(65)}`)).toThrow(
      '0x-prefixed hex',
    );
  });

  it('names keys by URI', () => {
    expect(addressOfKeyUri(keyUriOf(signer.address))).toBe(signer.address);
    expect(addressOfKeyUri('key:secp256k1:nope')).toBeUndefined();
  });
});
