import type { BaseWallet } from 'ethers';
import type { TestStack } from './stack';
import type { RegisteredUser } from './http';
import { createWalletClient, idempotencyKey, poll, withRetries } from '@wallet-service/client';

export const bearer = (user: RegisteredUser) => ({ authorization: `Bearer ${user.accessToken}` });

/**
 * What the first deploy prepare adds to its body: the user's PIN approving the owner key it names (later prepares
 * ignore it). Nothing for a user without a PIN.
 */
export async function ownerApproval(
  stack: Pick<TestStack, 'apiUrl'>,
  user: RegisteredUser,
  ownerAddress: string,
): Promise<{ pin?: string }> {
  if (!user.pin) return {};
  return { pin: await createWalletClient({ baseUrl: stack.apiUrl }).pin.ownerKey(user.pin, ownerAddress) };
}

/** Signs an on-chain slot as a wallet app would (the client's implementation). */
export { signSlot } from '@wallet-service/client';
import { signSlot } from '@wallet-service/client';

/**
 * Deploys the user's account on a network through the typed client, as an app does, and waits for the job. The PIN
 * (the user's, set at registration) approves the owner key, which the first prepare names.
 */
export async function deployAccount(
  stack: Pick<TestStack, 'apiUrl'>,
  user: RegisteredUser,
  owner: BaseWallet,
  networkId: string,
): Promise<string> {
  const api = createWalletClient({ baseUrl: stack.apiUrl, accessToken: user.accessToken });
  const prepared = await api.POST('/v1/wallet/networks/{networkId}/deploy/prepare', {
    params: { path: { networkId } },
    body: {
      ownerAddress: owner.address,
      ...(user.pin ? { pin: await api.pin.ownerKey(user.pin, owner.address) } : {}),
    },
  });
  if (!prepared.data) throw new Error(`prepare failed: ${prepared.response.status} ${JSON.stringify(prepared.error)}`);
  const slot = prepared.data.items[0]!;
  const key = idempotencyKey();
  const accepted = await withRetries(() =>
    api.POST('/v1/wallet/networks/{networkId}/deploy', {
      params: { path: { networkId }, header: { 'idempotency-key': key } },
      body: { signing: { items: [signSlot(slot, owner)] } },
    }),
  );
  if (accepted.response.status !== 202)
    throw new Error(`deploy failed: ${accepted.response.status} ${JSON.stringify(accepted.error)}`);
  await poll(
    () => api.GET('/v1/wallet/deploy-jobs/{jobId}', { params: { path: { jobId: slot.id } } }),
    (job) => job.status === 'completed',
    { timeoutMs: 60_000, what: 'deployment' },
  );
  return (slot.parameter as { domain: { accountAddress: string } }).domain.accountAddress;
}
