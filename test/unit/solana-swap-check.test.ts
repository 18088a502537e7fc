import {
  SYSTEM_PROGRAM,
  jupiterRouteMinimum,
  swapEffectRefusal,
  type SwapEffectInput,
} from '../../integrations/dex/solana-swap-check';

const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const WALLET_KEY = new Uint8Array(32).fill(7);
const OTHER_KEY = new Uint8Array(32).fill(9);
const USDT = 'usdt-mint';
const USDC = 'usdc-mint';
const WSOL = 'So11111111111111111111111111111111111111112';
const RENT = 2_039_280n;
const JUPITER = 'JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4';
/** A Jupiter v6 `route` instruction: discriminator, a route plan (opaque here), in, quoted out, slippage, platform fee. */
const route = (quotedOut: bigint, slippageBps: number, feeBps = 0, discriminator = 'e517cb977ae3ad2a') => {
  const tail = Buffer.alloc(19);
  tail.writeBigUInt64LE(1_000_000_000n, 0);
  tail.writeBigUInt64LE(quotedOut, 8);
  tail.writeUInt16LE(slippageBps, 16);
  tail[18] = feeBps;
  return new Uint8Array(
    Buffer.concat([Buffer.from(discriminator, 'hex'), Buffer.from([1, 0, 0, 0, 7, 100, 0, 1]), tail]),
  );
};

/** A 165-byte SPL token account: mint, owner, amount, optional delegate and close authority. */
const tokenAccount = (
  amount: bigint,
  options: { owner?: Uint8Array; delegate?: Uint8Array; close?: Uint8Array } = {},
) => {
  const data = Buffer.alloc(165);
  Buffer.from(options.owner ?? WALLET_KEY).copy(data, 32);
  data.writeBigUInt64LE(amount, 64);
  if (options.delegate) {
    data.writeUInt32LE(1, 72);
    Buffer.from(options.delegate).copy(data, 76);
  }
  data[108] = 1; // initialized
  if (options.close) {
    data.writeUInt32LE(1, 129);
    Buffer.from(options.close).copy(data, 133);
  }
  return { lamports: RENT, owner: TOKEN_PROGRAM, data: new Uint8Array(data) };
};
const walletState = (lamports: bigint) => ({ lamports, owner: SYSTEM_PROGRAM, data: new Uint8Array() });

/** Selling 1 SOL for at least 150 USDT: the wallet, its USDT and USDC accounts, before and after. */
const sale = (after: {
  sol?: bigint;
  usdt?: ReturnType<typeof tokenAccount> | null;
  usdc?: ReturnType<typeof tokenAccount>;
}): SwapEffectInput => ({
  wallet: 'wallet',
  transaction: {
    feePayer: 'wallet',
    instructions: [
      { program: SYSTEM_PROGRAM, data: new Uint8Array([2, 0, 0, 0]) },
      { program: TOKEN_PROGRAM, data: new Uint8Array([12]) },
    ],
    signers: [
      { address: 'wallet', signed: false },
      { address: 'pool', signed: true },
    ],
    durableNonce: false,
    feeLamports: 10_000n,
  },
  allowedPrograms: [SYSTEM_PROGRAM, TOKEN_PROGRAM, JUPITER],
  source: { mint: null, amount: 1_000_000_000n },
  target: { mint: USDT, minimum: 150_000_000n },
  maxFeeLamports: 20_000n,
  aggregatorProgram: JUPITER,
  wrappedSolMint: WSOL,
  accounts: [
    {
      address: 'wallet',
      mint: null,
      before: walletState(5_000_000_000n),
      after: walletState(after.sol ?? 3_999_990_000n),
    },
    {
      address: 'usdt-ata',
      mint: USDT,
      before: tokenAccount(10n),
      after: after.usdt === undefined ? tokenAccount(150_000_010n) : after.usdt,
    },
    { address: 'usdc-ata', mint: USDC, before: tokenAccount(5n), after: after.usdc ?? tokenAccount(5n) },
    { address: 'wsol-ata', mint: WSOL, before: null, after: null },
  ],
});

describe('the effect check of a SOLANA swap transaction', () => {
  it('passes the swap: the input out, the minimum in, a fee within the cap', () => {
    expect(swapEffectRefusal(sale({}), WALLET_KEY)).toBeNull();
    // The output's account created by the transaction: its rent stays the person's (counted with their SOL).
    const created = sale({ sol: 3_999_990_000n - RENT });
    created.accounts[1]!.before = null;
    created.accounts[1]!.after = tokenAccount(150_000_000n);
    expect(swapEffectRefusal(created, WALLET_KEY)).toBeNull();
  });

  const withTx = (change: Partial<SwapEffectInput['transaction']>) => {
    const input = sale({});
    return { ...input, transaction: { ...input.transaction, ...change } };
  };

  it('refuses a foreign fee payer, programs off the allow-list, a durable nonce, other signers to come, fees over the cap', () => {
    expect(swapEffectRefusal(withTx({ feePayer: 'pool' }), WALLET_KEY)).toMatch(/fee payer is pool/);
    expect(
      swapEffectRefusal(withTx({ instructions: [{ program: 'Drainer111', data: new Uint8Array() }] }), WALLET_KEY),
    ).toMatch(/not on the network's allow-list: Drainer111/);
    expect(swapEffectRefusal(withTx({ durableNonce: true }), WALLET_KEY)).toMatch(/durable nonce/);
    const twoToSign = withTx({
      signers: [
        { address: 'wallet', signed: false },
        { address: 'pool', signed: false },
      ],
    });
    expect(swapEffectRefusal(twoToSign, WALLET_KEY)).toMatch(/signatures other than the wallet's alone: wallet, pool/);
    expect(swapEffectRefusal(withTx({ feeLamports: 20_001n }), WALLET_KEY)).toMatch(/above SOLANA_SWAP_MAX_FEE/);
  });

  it("reads the threshold Jupiter's route instruction enforces on chain, and refuses one below the quote's minimum", () => {
    // 151 USDT quoted at 0.5 % slippage: at least 150.245 USDT at execution.
    expect(jupiterRouteMinimum(route(151_000_000n, 50))).toBe(150_245_000n);
    expect(jupiterRouteMinimum(route(151_000_000n, 50, 0, 'c1209b3341d69c81'))).toBe(150_245_000n);
    expect(jupiterRouteMinimum(route(151_000_000n, 50, 0, 'd033ef977b2bed5c'))).toBeUndefined(); // exact_out_route
    const keeps = withTx({ instructions: [{ program: JUPITER, data: route(151_000_000n, 50) }] });
    expect(swapEffectRefusal(keeps, WALLET_KEY)).toBeNull();
    // The same route at 100 % slippage: the simulation shows today's price, execution could give nothing.
    const loose = withTx({ instructions: [{ program: JUPITER, data: route(151_000_000n, 10_000) }] });
    expect(swapEffectRefusal(loose, WALLET_KEY)).toMatch(/as little as 0 at execution, below the quote's minimum/);
    const fee = withTx({ instructions: [{ program: JUPITER, data: route(151_000_000n, 50, 100) }] });
    expect(swapEffectRefusal(fee, WALLET_KEY)).toMatch(/as little as 148742550/);
    const other = withTx({ instructions: [{ program: JUPITER, data: new Uint8Array(40) }] });
    expect(swapEffectRefusal(other, WALLET_KEY)).toMatch(/other than an ExactIn route/);
  });

  it('refuses more SOL out than the input and the fee cap, and less than the minimum in', () => {
    expect(swapEffectRefusal(sale({ sol: 3_999_989_999n }), WALLET_KEY)).toMatch(/would take 1000010001 lamports/);
    expect(swapEffectRefusal(sale({ usdt: tokenAccount(150_000_009n) }), WALLET_KEY)).toMatch(
      /give 149999999 of usdt-mint, less than the quote's minimum/,
    );
    expect(swapEffectRefusal(sale({ usdt: null }), WALLET_KEY)).toMatch(/close the account usdt-ata/);
  });

  it('refuses touching a token the swap does not trade', () => {
    expect(swapEffectRefusal(sale({ usdc: tokenAccount(4n) }), WALLET_KEY)).toMatch(/take 1 of usdc-mint/);
  });

  it("refuses handing over the person's accounts: owner, delegate, close authority, the wallet itself", () => {
    expect(swapEffectRefusal(sale({ usdc: tokenAccount(5n, { owner: OTHER_KEY }) }), WALLET_KEY)).toMatch(
      /another owner/,
    );
    expect(swapEffectRefusal(sale({ usdc: tokenAccount(5n, { delegate: OTHER_KEY }) }), WALLET_KEY)).toMatch(
      /a delegate/,
    );
    // Closing an account of theirs that existed (its rent would go wherever the instruction says).
    const closed = sale({});
    closed.accounts[2]!.after = null;
    expect(swapEffectRefusal(closed, WALLET_KEY)).toMatch(/close the account usdc-ata/);
    expect(swapEffectRefusal(sale({ usdc: tokenAccount(5n, { close: OTHER_KEY }) }), WALLET_KEY)).toMatch(
      /another close authority/,
    );
    const assigned = sale({});
    assigned.accounts[0]!.after = { lamports: 3_999_990_000n, owner: 'SomeProgram', data: new Uint8Array() };
    expect(swapEffectRefusal(assigned, WALLET_KEY)).toMatch(/hand the person's wallet to another program/);
  });

  it('holds a SOL output to the minimum, net of the fee cap', () => {
    const purchase: SwapEffectInput = {
      ...sale({}),
      source: { mint: USDT, amount: 150_000_000n },
      target: { mint: null, minimum: 1_000_000_000n },
    };
    purchase.accounts = [
      { address: 'wallet', mint: null, before: walletState(0n + 5_000_000_000n), after: walletState(5_999_990_000n) },
      { address: 'usdt-ata', mint: USDT, before: tokenAccount(150_000_000n), after: tokenAccount(0n) },
    ];
    expect(swapEffectRefusal(purchase, WALLET_KEY)).toBeNull();
    purchase.accounts[0]!.after = walletState(5_999_989_999n);
    expect(swapEffectRefusal(purchase, WALLET_KEY)).toMatch(
      /less than the quote's minimum of 1000000000 less the fee of 10000/,
    );
  });
});
