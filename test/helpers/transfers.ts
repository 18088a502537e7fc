import { Contract, Wallet, parseEther, parseUnits, type InterfaceAbi } from 'ethers';
import { loadArtifact } from '../../contracts/build';
import { randomUUID } from 'node:crypto';
import type { StackChain, TestStack } from './stack';
import { transferPin, type TransferFields } from './pin';
import { registerUser, type RegisteredUser } from './http';
import { callApi } from './bank';
import { deployAccount } from './wallet';
import { waitFor } from './processes';

/**
 * The status of a transfer the chain included: `confirmed`, or already `finalized` (with one confirmation, as the
 * test chains are configured, finality follows inclusion at once).
 */
export const INCLUDED = /^(confirmed|finalized)$/;

/** A registered user with a transaction PIN and a deployed ETHEREUM account holding 1 ETH and `usdt` test USDT. */
export async function fundedUser(
  stack: TestStack,
  pin: string,
  usdt = '10000',
): Promise<{ user: RegisteredUser; account: string }> {
  const user = await registerUser(stack, undefined, { pin });
  const account = await deployAccount(stack, user, Wallet.createRandom(), 'ETHEREUM');
  const chain = stack.chains[0]!;
  const token = new Contract(chain.usdt, loadArtifact('TestUSDT').abi as InterfaceAbi, chain.funder);
  const nonce = await chain.provider.getTransactionCount(chain.funder.address, 'latest');
  await (await chain.funder.sendTransaction({ to: account, value: parseEther('1'), nonce })).wait();
  if (usdt !== '0') await (await token.getFunction('mint')(account, parseUnits(usdt, 6), { nonce: nonce + 1 })).wait();
  return { user, account };
}

/** Waits until the API shows the transfer included (confirmed or finalized). */
export async function untilIncluded(
  stack: TestStack,
  user: RegisteredUser,
  transferId: string,
  what: string,
  timeoutMs = 90_000,
): Promise<void> {
  await waitFor(
    async () => INCLUDED.test((await callApi(stack, `/api/v1/transfer/crypto/${transferId}`, user)).body.status),
    timeoutMs,
    what,
  );
}

/** A debug method of a test stack's Alto (started with --enable-debug-endpoints), e.g. its bundling mode. */
export async function bundlerDebug(chain: StackChain, method: string, params: unknown[] = []): Promise<unknown> {
  const response = await fetch(chain.bundler.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const answer = (await response.json()) as { result?: unknown; error?: { message: string } };
  if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
  return answer.result;
}

/** POST /v1/transfer/crypto/execute with the PIN sealed to these fields and an Idempotency-Key. */
export async function executeTransfer(
  stack: TestStack,
  user: RegisteredUser,
  pin: string,
  fields: TransferFields,
  key: string = randomUUID(),
): ReturnType<typeof callApi> {
  return callApi(stack, '/api/v1/transfer/crypto/execute', user, {
    json: { ...fields, pin: await transferPin(stack, pin, fields, key) },
    key,
  });
}
