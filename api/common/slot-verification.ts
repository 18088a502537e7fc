import { recoverSlotSigner, SlotSignatureError, type SigningAlgorithm } from '../../integrations/evm/signing-slots';
import { problems } from '../http/problems';

interface SignedSlotInput {
  id: string;
  parameter: { algorithm?: string; keyUri?: string };
  signature: { authResponse: { signature?: string } };
}

/**
 * Checks a signed on-chain slot against what was prepared: same algorithm and key, a well-formed signature, made by
 * the expected key over the prepared digest. Answers the signature; every refusal is a 422 with its reason.
 */
export function verifyOnChainSlot(
  slot: SignedSlotInput,
  prepared: { algorithm: SigningAlgorithm; keyUri: string; payload: string; signer: string },
): string {
  if (slot.parameter.algorithm !== prepared.algorithm || slot.parameter.keyUri !== prepared.keyUri) {
    throw problems.unprocessable('slot-mismatch', 'The slot parameter does not match the prepared slot');
  }
  const signature = slot.signature.authResponse.signature;
  if (!signature)
    throw problems.unprocessable('slot-mismatch', 'authResponse.signature is required for an on-chain slot');
  let signer: string;
  try {
    signer = recoverSlotSigner(prepared.algorithm, prepared.payload, signature);
  } catch (error) {
    if (error instanceof SlotSignatureError) throw problems.unprocessable('invalid-signature', error.message);
    throw error;
  }
  if (signer !== prepared.signer)
    throw problems.unprocessable('invalid-signature', 'The signature is not by the expected key');
  return signature;
}
