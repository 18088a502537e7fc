/**
 * Jupiter's Swap API V2 (https://dev.jup.ag/docs/swap, openapi-spec/swap/v2/swap.yaml of jup-ag/docs), the
 * Meta-Aggregator path: `GET /jupiter/swap/v2/order` (a quote; with `taker`, also the transaction to sign), behind the
 * `x-api-key` header, with the published answer's fields (inAmount, outAmount, otherAmountThreshold, swapMode,
 * slippageBps, priceImpact in percentage points and the deprecated priceImpactPct, routePlan with swapInfo/percent/bps,
 * platformFee, feeBps/feeMint, router, mode, requestId) and its 400 `{requestId, error}`.
 *
 * The liquidity is real and on the local SOLANA chain: one constant-product pool whose reserves are the balances of
 * the sandbox's pool wallet (its SOL and its USDT), read on every order. `PUT /jupiter/_chain {rpcUrl, mints}` tells
 * the sandbox which chain and mints (the stack does it once the chain runs); the stack funds the pool wallet
 * (`jupiterPoolAddress`) at the market's price. As on Jupiter: ExactIn only; the platform fee of a SOL–stable pair is
 * 2 bps, taken in SOL (first in Jupiter's fee-mint priority).
 *
 * With `taker`, the order carries `transaction`: a v0 transaction the taker pays for (fee payer) and signs last, already
 * signed by the pool's wallet, that moves the input from the taker to the pool and the order's outAmount back (an
 * associated token account for the output created first if missing). Jupiter's own program cannot run on the local
 * chain, so the pool fills at the order's price by plain transfers; what the taker's side of it does to their accounts
 * is what a real order's does. `PUT /jupiter/_settings {tamper}` makes the next orders' transactions do something more
 * (`foreign-program`: a Memo instruction; `extra-debit`: 0.01 SOL more from the taker; `delegate`: the taker's USDT
 * account delegated to the pool; `fee-payer`: the pool pays the fee), as a compromised aggregator might: the service
 * must refuse them by their effect.
 */
import { createHash, randomUUID } from 'node:crypto';
import Router from '@koa/router';
import {
  address,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromPrivateKeyBytes,
  createNoopSigner,
  createSolanaRpc,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
  type Instruction,
  type KeyPairSigner,
  type TransactionSigner,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { getAddMemoInstruction } from '@solana-program/memo';
import {
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getApproveInstruction,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token';

/** The wrapped SOL mint: how Jupiter names SOL. */
export const WSOL_MINT = 'So11111111111111111111111111111111111111112';
/** The pool's own fee (an AMM's, inside outAmount) and Jupiter's platform fee of a SOL–stable pair, in bps. */
const POOL_FEE_BPS = 25n;
const PLATFORM_FEE_BPS = 2n;
const DEFAULT_SLIPPAGE_BPS = 50;
/** Lamports the pool keeps for its fees and rent: never quoted away. */
const POOL_SOL_RESERVE = 1_000_000_000n;
export const JUPITER_POOL_LABEL = 'Sandbox CPMM';

/** The sandbox pool's wallet: a fixed local key (like anvil's development accounts), never used outside local chains. */
export const jupiterPoolSigner = (): Promise<KeyPairSigner> =>
  createKeyPairSignerFromPrivateKeyBytes(
    new Uint8Array(createHash('sha256').update('wallet-service/sandbox/jupiter-pool').digest()),
  );
export const jupiterPoolAddress = async (): Promise<string> => (await jupiterPoolSigner()).address;

interface Chain {
  rpcUrl: string;
  /** symbol -> mint, the stable side: USDT. */
  mints: Record<string, string>;
}

export interface JupiterSandboxOptions {
  apiKey: string;
}

/** What the next orders' transactions do beyond the swap (PUT /jupiter/_settings): an attack the taker must catch. */
export const TAMPERS = ['foreign-program', 'extra-debit', 'delegate', 'fee-payer'] as const;
export type Tamper = (typeof TAMPERS)[number];
const MEMO_PROGRAM = address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
const EXTRA_DEBIT_LAMPORTS = 10_000_000n;

export class JupiterSandbox {
  private chain?: Chain & { rpc: ReturnType<typeof createSolanaRpc> };
  private tamper: Tamper | null = null;

  constructor(private readonly options: JupiterSandboxOptions) {}

  attach(chain: Chain): void {
    this.chain = { ...chain, rpc: createSolanaRpc(chain.rpcUrl) };
  }

  /** The pool's reserves: its SOL (less what it keeps for fees) and its balance of the stable token. */
  async reserves(): Promise<{ sol: bigint; stable: bigint; stableMint: string }> {
    const chain = this.chain!;
    const pool = await jupiterPoolAddress();
    const stableMint = chain.mints.USDT!;
    const [ata] = await findAssociatedTokenPda({
      owner: address(pool),
      mint: address(stableMint),
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    });
    const lamports = (await chain.rpc.getBalance(address(pool), { commitment: 'confirmed' }).send()).value;
    const info = (await chain.rpc.getAccountInfo(ata, { encoding: 'base64', commitment: 'confirmed' }).send()).value;
    const stable = info
      ? BigInt((await chain.rpc.getTokenAccountBalance(ata, { commitment: 'confirmed' }).send()).value.amount)
      : 0n;
    return { sol: lamports > POOL_SOL_RESERVE ? lamports - POOL_SOL_RESERVE : 0n, stable, stableMint };
  }

  private async ataOf(owner: string, mint: string): Promise<Address> {
    return (
      await findAssociatedTokenPda({ owner: address(owner), mint: address(mint), tokenProgram: TOKEN_PROGRAM_ADDRESS })
    )[0];
  }

  /** The stable mint's decimals, from its mint account (byte 44). */
  private async decimalsOf(mint: string): Promise<number> {
    const info = (await this.chain!.rpc.getAccountInfo(address(mint), { encoding: 'base64' }).send()).value;
    if (!info) throw new Error(`mint ${mint} not found`);
    return Buffer.from(info.data[0], 'base64')[44]!;
  }

  /** The order's transaction: the taker's input to the pool, the pool's output to the taker, signed by the pool. */
  private async transactionFor(input: {
    taker: string;
    solIn: boolean;
    amountIn: bigint;
    amountOut: bigint;
    stableMint: string;
  }): Promise<{ transaction: string; lastValidBlockHeight: string }> {
    const rpc = this.chain!.rpc;
    const pool = await jupiterPoolSigner();
    const taker = createNoopSigner(address(input.taker));
    const mint = address(input.stableMint);
    const decimals = await this.decimalsOf(input.stableMint);
    const [takerAta, poolAta] = [await this.ataOf(input.taker, mint), await this.ataOf(pool.address, mint)];
    const payer: TransactionSigner = this.tamper === 'fee-payer' ? pool : taker;
    const instructions: Instruction[] = [];
    if (input.solIn) {
      instructions.push(
        getCreateAssociatedTokenIdempotentInstruction({ payer: taker, owner: taker.address, mint, ata: takerAta }),
        getTransferSolInstruction({ source: taker, destination: pool.address, amount: input.amountIn }),
        getTransferCheckedInstruction({
          source: poolAta,
          mint,
          destination: takerAta,
          authority: pool,
          amount: input.amountOut,
          decimals,
        }),
      );
    } else {
      instructions.push(
        getTransferCheckedInstruction({
          source: takerAta,
          mint,
          destination: poolAta,
          authority: taker,
          amount: input.amountIn,
          decimals,
        }),
        getTransferSolInstruction({ source: pool, destination: taker.address, amount: input.amountOut }),
      );
    }
    if (this.tamper === 'foreign-program')
      instructions.push(getAddMemoInstruction({ memo: 'jupiter sandbox' }, { programAddress: MEMO_PROGRAM }));
    if (this.tamper === 'extra-debit')
      instructions.push(
        getTransferSolInstruction({ source: taker, destination: pool.address, amount: EXTRA_DEBIT_LAMPORTS }),
      );
    if (this.tamper === 'delegate')
      instructions.push(
        getApproveInstruction({ source: takerAta, delegate: pool.address, owner: taker, amount: 2n ** 64n - 1n }),
      );
    const { value: lifetime } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
    const signed = await pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
      (m) => appendTransactionMessageInstructions(instructions, m),
      (m) => partiallySignTransactionMessageWithSigners(m),
    );
    return {
      transaction: getBase64EncodedWireTransaction(signed),
      lastValidBlockHeight: lifetime.lastValidBlockHeight.toString(),
    };
  }

  router(): Router {
    const router = new Router({ prefix: '/jupiter' });
    router.put('/_chain', (ctx) => {
      const body = (ctx.request as unknown as { body?: Partial<Chain> }).body ?? {};
      if (typeof body.rpcUrl !== 'string' || typeof body.mints?.USDT !== 'string') {
        ctx.status = 400;
        ctx.body = { error: 'rpcUrl and mints.USDT are required' };
        return;
      }
      this.attach({ rpcUrl: body.rpcUrl, mints: body.mints });
      ctx.body = { rpcUrl: body.rpcUrl, mints: body.mints, pool: undefined };
    });
    router.put('/_settings', (ctx) => {
      const body = (ctx.request as unknown as { body?: { tamper?: unknown } }).body ?? {};
      const tamper = body.tamper ?? null;
      if (tamper !== null && !TAMPERS.includes(tamper as Tamper)) {
        ctx.status = 400;
        ctx.body = { error: `tamper: one of ${TAMPERS.join(', ')}, or null` };
        return;
      }
      this.tamper = tamper as Tamper | null;
      ctx.body = { tamper: this.tamper };
    });
    router.get('/swap/v2/order', async (ctx) => {
      const requestId = randomUUID();
      const started = Date.now();
      const refuse = (status: number, error: string) => {
        ctx.status = status;
        ctx.body = status === 401 ? { message: error } : { requestId, error };
      };
      if (ctx.get('x-api-key') !== this.options.apiKey) return refuse(401, 'Unauthorized');
      if (!this.chain) return refuse(503, 'the sandbox has no chain yet (PUT /jupiter/_chain)');
      const q = ctx.query as Record<string, string | undefined>;
      const { inputMint, outputMint, amount, taker } = q;
      if (!inputMint || !outputMint || !amount) return refuse(400, 'inputMint, outputMint and amount are required');
      if (!/^[1-9]\d{0,19}$/.test(amount)) return refuse(400, 'Invalid amount');
      if ((q.swapMode ?? 'ExactIn') !== 'ExactIn') return refuse(400, 'swapMode: only ExactIn is supported');
      const slippage = q.slippageBps === undefined ? DEFAULT_SLIPPAGE_BPS : Number(q.slippageBps);
      if (!Number.isInteger(slippage) || slippage < 0 || slippage > 10_000) return refuse(400, 'Invalid slippageBps');
      if (inputMint === outputMint) return refuse(400, 'inputMint and outputMint cannot be the same');
      if (taker !== undefined && !/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(taker)) return refuse(400, 'Invalid taker');
      const reserves = await this.reserves();
      const pair = [WSOL_MINT, reserves.stableMint];
      if (!pair.includes(inputMint) || !pair.includes(outputMint)) return refuse(400, 'Failed to get quotes');
      const solIn = inputMint === WSOL_MINT;
      const [reserveIn, reserveOut] = solIn ? [reserves.sol, reserves.stable] : [reserves.stable, reserves.sol];
      const amountIn = BigInt(amount);
      // The platform fee in SOL: off the input when SOL goes in, off the output when SOL comes out.
      const feeIn = solIn ? (amountIn * PLATFORM_FEE_BPS) / 10_000n : 0n;
      const routed = amountIn - feeIn;
      const withPoolFee = routed * (10_000n - POOL_FEE_BPS);
      const poolOut = reserveIn === 0n ? 0n : (withPoolFee * reserveOut) / (reserveIn * 10_000n + withPoolFee);
      if (poolOut === 0n) return refuse(400, 'Failed to get quotes');
      const feeOut = solIn ? 0n : (poolOut * PLATFORM_FEE_BPS) / 10_000n;
      const outAmount = poolOut - feeOut;
      // Price impact against the pool's mid price (its fee excluded), in percentage points, negative as Jupiter's.
      const atMid = (routed * (10_000n - POOL_FEE_BPS) * reserveOut) / (reserveIn * 10_000n);
      const impact = atMid === 0n ? 0 : -Number(((atMid - poolOut) * 1_000_000n) / atMid) / 10_000;
      const threshold = (outAmount * BigInt(10_000 - slippage)) / 10_000n;
      const built = taker
        ? await this.transactionFor({ taker, solIn, amountIn, amountOut: outAmount, stableMint: reserves.stableMint })
        : undefined;
      ctx.body = {
        mode: q.slippageBps === undefined && !q.payer ? 'ultra' : 'manual',
        inputMint,
        outputMint,
        inAmount: amountIn.toString(),
        outAmount: outAmount.toString(),
        otherAmountThreshold: threshold.toString(),
        swapMode: 'ExactIn',
        slippageBps: slippage,
        priceImpact: impact,
        priceImpactPct: String(impact / 100),
        routePlan: [
          {
            swapInfo: {
              ammKey: await jupiterPoolAddress(),
              label: JUPITER_POOL_LABEL,
              inputMint,
              outputMint,
              inAmount: routed.toString(),
              outAmount: poolOut.toString(),
            },
            percent: 100,
            bps: 10_000,
          },
        ],
        feeMint: WSOL_MINT,
        feeBps: Number(PLATFORM_FEE_BPS),
        platformFee: { amount: (feeIn + feeOut).toString(), feeBps: Number(PLATFORM_FEE_BPS), feeMint: WSOL_MINT },
        signatureFeeLamports: 5000,
        signatureFeePayer: taker ?? null,
        prioritizationFeeLamports: 0,
        prioritizationFeePayer: taker ?? null,
        rentFeeLamports: 0,
        rentFeePayer: taker ?? null,
        swapType: 'aggregator',
        router: 'metis',
        transaction: built?.transaction ?? null,
        ...(built ? { lastValidBlockHeight: built.lastValidBlockHeight } : {}),
        gasless: false,
        requestId,
        totalTime: Date.now() - started,
        taker: taker ?? null,
      };
    });
    return router;
  }
}
