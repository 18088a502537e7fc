import { SYSTEM_PROGRAM, swapEffectRefusal, type SwapEffectInput } from '../../integrations/dex/solana-swap-check';

const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const WALLET_KEY = new Uint8Array(32).fill(7);
const OTHER_KEY = new Uint8Array(32).fill(9);
const USDT = 'usdt-mint';
const USDC = 'usdc-mint';
const WSOL = 'So11111111111111111111111111111111111111112';
const RENT = 2_039_280n;

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
  feePayer: 'wallet',
  programs: [SYSTEM_PROGRAM, TOKEN_PROGRAM],
  allowedPrograms: [SYSTEM_PROGRAM, TOKEN_PROGRAM],
  source: { mint: null, amount: 1_000_000_000n },
  target: { mint: USDT, minimum: 150_000_000n },
  maxFeeLamports: 20_000n,
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

  it('refuses a foreign fee payer and programs off the allow-list', () => {
    expect(swapEffectRefusal({ ...sale({}), feePayer: 'pool' }, WALLET_KEY)).toMatch(/fee payer is pool/);
    expect(swapEffectRefusal({ ...sale({}), programs: [SYSTEM_PROGRAM, 'Drainer111'] }, WALLET_KEY)).toMatch(
      /not on the network's allow-list: Drainer111/,
    );
  });

  it('refuses more SOL out than the input and the fee cap, and less than the minimum in', () => {
    expect(swapEffectRefusal(sale({ sol: 3_999_979_999n }), WALLET_KEY)).toMatch(/would take 1000020001 lamports/);
    expect(swapEffectRefusal(sale({ usdt: tokenAccount(150_000_009n) }), WALLET_KEY)).toMatch(
      /give 149999999 of usdt-mint, less than the quote's minimum/,
    );
    expect(swapEffectRefusal(sale({ usdt: null }), WALLET_KEY)).toMatch(/less than the quote's minimum/);
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
    purchase.accounts[0]!.after = walletState(5_999_970_000n);
    expect(swapEffectRefusal(purchase, WALLET_KEY)).toMatch(/less than the quote's minimum of 1000000000 less fees/);
  });
});
