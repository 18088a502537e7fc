import { randomUUID } from 'node:crypto';
import type { BaseWallet } from 'ethers';
import type { TestStack } from './stack';
import { call, type RegisteredUser } from './http';
import { waitFor } from './processes';

export const bearer = (user: RegisteredUser) => ({ authorization: `Bearer ${user.accessToken}` });

/** Signs an on-chain slot as a wallet app would (the client's implementation). */
export { signSlot } from '@wallet-service/client';
import { signSlot } from '@wallet-service/client';

/** Deploys the user's account on a network over HTTP and waits for the job to complete. */
export async function deployAccount(stack: Pick<TestStack, 'apiUrl'>, user: RegisteredUser, owner: BaseWallet, networkId: string): Promise<string> {
  const prepared = await call(`${stack.apiUrl}/v1/wallet/networks/${networkId}/deploy/prepare`, { headers: bearer(user), json: { ownerAddress: owner.address } });
  if (prepared.status !== 200) throw new Error(`prepare failed: ${prepared.status} ${JSON.stringify(prepared.body)}`);
  const slot = prepared.body.items[0];
  const accepted = await call(`${stack.apiUrl}/v1/wallet/networks/${networkId}/deploy`, {
    headers: { ...bearer(user), 'idempotency-key': randomUUID() }, json: { signing: { items: [signSlot(slot, owner)] } },
  });
  if (accepted.status !== 202) throw new Error(`deploy failed: ${accepted.status} ${JSON.stringify(accepted.body)}`);
  await waitFor(async () => (await call(`${stack.apiUrl}/v1/wallet/deploy-jobs/${slot.id}`, { headers: bearer(user) })).body.status === 'completed', 60_000, 'deployment');
  return slot.parameter.domain.accountAddress as string;
}
