export async function noop(): Promise<void> {
  return undefined;
}

/** A pre-signed user operation in its JSON-RPC form, the bundler and EntryPoint it goes to, and its userOpHash. */
export interface DurableTransferInput {
  bundlerUrl: string;
  entryPoint: string;
  op: Record<string, string>;
  hash: string;
}

async function rpc<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: T; error?: { code: number; message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.code} ${body.error.message}`);
  return body.result as T;
}

/**
 * The minimal durable transfer's one step: the operation sent to the bundler, then its receipt awaited, polled every
 * 50 ms as the bench's straight-to-the-bundler round does. A retry is safe by the operation's hash: one the bundler
 * knows already is not sent again.
 */
export async function sendAndWait(input: DurableTransferInput): Promise<string> {
  const { bundlerUrl, entryPoint, op, hash } = input;
  try {
    await rpc(bundlerUrl, 'eth_sendUserOperation', [op, entryPoint]);
  } catch (error) {
    if (!(await rpc(bundlerUrl, 'eth_getUserOperationByHash', [hash]))) throw error;
  }
  const deadline = Date.now() + 60_000;
  for (;;) {
    const receipt = await rpc<{ success: boolean; receipt: { transactionHash: string } } | null>(
      bundlerUrl,
      'eth_getUserOperationReceipt',
      [hash],
    );
    if (receipt) {
      if (!receipt.success) throw new Error(`user operation ${hash} reverted`);
      return receipt.receipt.transactionHash;
    }
    if (Date.now() > deadline) throw new Error(`user operation ${hash} not included within 60 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
