import {
  Contract,
  Interface,
  MaxUint256,
  Wallet,
  parseEther,
  parseUnits,
  solidityPacked,
  type InterfaceAbi,
} from 'ethers';
import QuoterV2Artifact from '@uniswap/v3-periphery/artifacts/contracts/lens/QuoterV2.sol/QuoterV2.json';
import SwapRouterArtifact from '@uniswap/v3-periphery/artifacts/contracts/SwapRouter.sol/SwapRouter.json';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, registerUser, type RegisteredUser } from '../helpers/http';
import { callApi } from '../helpers/bank';
import { bearer, deployAccount } from '../helpers/wallet';
import { POOL_TRADE_GAS } from '../../dev/uniswap';

/**
 * Quotes from Uniswap v3 deployed on the local chains from Uniswap's own artifacts, its pools seeded at the sandbox
 * market's prices. The expected figures are the chain's: the test asks QuoterV2 itself, at the block the quote names.
 */
describe('exchange quotes from Uniswap v3 on chain', () => {
  let stack: TestStack;
  let user: RegisteredUser;
  const quoter = new Interface(QuoterV2Artifact.abi as InterfaceAbi);
  beforeAll(async () => {
    stack = await startTestStack(testDatabases()[0]!, { chains: true });
    user = await registerUser(stack);
    const account = await deployAccount(stack, user, Wallet.createRandom(), 'ETHEREUM');
    const chain = stack.chains[0]!;
    await (await chain.funder.sendTransaction({ to: account, value: parseEther('2') })).wait();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const quote = (body: Record<string, string>, u = user) =>
    call(`${stack.apiUrl}/v1/exchange/quote`, { headers: bearer(u), json: body });
  const eth = (direction: string, amount: string, extra: Record<string, string> = {}) =>
    quote({ source: 'ETH', target: 'USDT', networkId: 'ETHEREUM', direction, amount, ...extra });
  const tokenAddress = (chainIndex: number, symbol: string) => {
    const chain = stack.chains[chainIndex]!;
    return {
      ETH: chain.uniswap.wrappedNative,
      POL: chain.uniswap.wrappedNative,
      USDT: chain.usdt,
      USDC: chain.uniswap.usdc,
      WBTC: chain.uniswap.wbtc,
    }[symbol]!;
  };
  /** QuoterV2's own answer for the route a quote reports, at the block it reports. */
  const quoterSays = async (chainIndex: number, body: any, amount: bigint): Promise<bigint> => {
    const chain = stack.chains[chainIndex]!;
    const tokens = (body.route as string[]).map((s) => tokenAddress(chainIndex, s));
    const fees = (body.hops as Array<{ feeTier: number }>).map((h) => h.feeTier);
    if (body.direction === 'exactOutput') {
      tokens.reverse();
      fees.reverse();
    }
    const types = ['address', ...fees.flatMap(() => ['uint24', 'address'])];
    const values = [tokens[0]!, ...fees.flatMap((fee, i) => [fee, tokens[i + 1]!])];
    const fn = body.direction === 'exactInput' ? 'quoteExactInput' : 'quoteExactOutput';
    const data = await chain.provider.call({
      to: chain.uniswap.quoterV2,
      data: quoter.encodeFunctionData(fn, [solidityPacked(types, values), amount]),
      blockTag: body.blockNumber,
    });
    return quoter.decodeFunctionResult(fn, data)[0] as bigint;
  };

  it("quotes exactInput with QuoterV2's answer for the route it reports, near the market's price", async () => {
    const { status, body } = await eth('exactInput', '1');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      source: 'ETH',
      target: 'USDT',
      direction: 'exactInput',
      networkId: 'ETHEREUM',
      sourceAmount: '1',
      sourceDisplayAmount: '1 ETH',
      route: ['ETH', 'USDT'],
      feeTier: 500, // the deepest pool pays most for 1 ETH
      intermediary: null,
      slippage: '0.50%',
      priceImpactWarning: false,
      executable: true,
      notExecutableReason: null,
      maximumSent: null,
    });
    expect(body.hops).toEqual([{ tokenIn: 'ETH', tokenOut: 'USDT', feeTier: 500, pool: expect.any(String) }]);
    const out = await quoterSays(0, body, parseEther('1'));
    expect(parseUnits(body.targetAmount, 6)).toBe(out);
    expect(parseUnits(body.minimumReceived, 6)).toBe((out * 9950n) / 10_000n);
    // The pools were seeded at the sandbox market's prices: the quote's price is within 2 % of the market's.
    const price = async (asset: string) =>
      (await callApi(stack, `/api/v1/market-price?asset=${asset}`, user)).body.current as number;
    const market = (await price('ETH')) / (await price('USDT'));
    expect(Math.abs(Number(body.exchangeRate) / market - 1)).toBeLessThan(0.02);
    expect(body.quoteId).toMatch(/^q1\.[A-Za-z0-9_-]+$/);
    expect(Date.parse(body.expiresAt) - Date.now()).toBeGreaterThan(30_000);
    expect(body.blockNumber).toBeLessThanOrEqual(Number(await stack.chains[0]!.provider.send('eth_blockNumber', [])));
  });

  it('quotes exactOutput: the input QuoterV2 asks for, and the most a swap may take', async () => {
    const { body } = await eth('exactOutput', '3000');
    expect(body).toMatchObject({ targetAmount: '3000', minimumReceived: '3000', feeTier: 500, executable: true });
    const needed = await quoterSays(0, body, parseUnits('3000', 6));
    expect(parseEther(body.sourceAmount)).toBe(needed);
    expect(parseEther(body.maximumSent)).toBe((needed * 10_050n + 9_999n) / 10_000n);
  });

  it('routes through an intermediary when there is no direct pool, each hop with its fee', async () => {
    const { body } = await quote({
      source: 'WBTC',
      target: 'USDC',
      networkId: 'ETHEREUM',
      direction: 'exactInput',
      amount: '0.1',
    });
    expect(body).toMatchObject({ route: ['WBTC', 'ETH', 'USDC'], intermediary: 'ETH', feeTier: null });
    expect(body.hops.map((h: any) => h.feeTier)).toEqual([3000, 3000]);
    expect(parseUnits(body.targetAmount, 6)).toBe(await quoterSays(0, body, parseUnits('0.1', 8)));
    expect(body).toMatchObject({ executable: false, notExecutableReason: 'insufficient_balance' }); // the account holds no WBTC
  });

  it("quotes POLYGON's pools, where POL trades as the wrapped coin", async () => {
    const { status, body } = await quote({
      source: 'POL',
      target: 'USDT',
      networkId: 'POLYGON',
      direction: 'exactInput',
      amount: '1000',
    });
    expect(status).toBe(200);
    expect(parseUnits(body.targetAmount, 6)).toBe(await quoterSays(1, body, parseEther('1000')));
  });

  it('follows the pool: a trade against it between two quotes moves the next one', async () => {
    const before = (await eth('exactInput', '1')).body;
    const chain = stack.chains[0]!;
    // Someone sells 50 ETH into the 0.05 % pool: ETH is worth less there afterwards.
    const weth = new Contract(
      chain.uniswap.wrappedNative,
      ['function deposit() payable', 'function approve(address,uint256) returns (bool)'],
      chain.funder,
    );
    const nonce = await chain.funder.getNonce('pending');
    await (await weth.getFunction('deposit')({ value: parseEther('50'), nonce })).wait();
    await (await weth.getFunction('approve')(chain.uniswap.swapRouter, MaxUint256, { nonce: nonce + 1 })).wait();
    const router = new Contract(chain.uniswap.swapRouter, SwapRouterArtifact.abi as InterfaceAbi, chain.funder);
    await (
      await router.getFunction('exactInputSingle')(
        {
          tokenIn: chain.uniswap.wrappedNative,
          tokenOut: chain.usdt,
          fee: 500,
          recipient: chain.funder.address,
          deadline: MaxUint256,
          amountIn: parseEther('50'),
          amountOutMinimum: 0n,
          sqrtPriceLimitX96: 0n,
        },
        { nonce: nonce + 2, gasLimit: POOL_TRADE_GAS },
      )
    ).wait();
    // Quotes read the newest block at most once a second (QUOTE_BLOCK_CACHE_MS).
    await new Promise((r) => setTimeout(r, 1_100));
    const after = (await eth('exactInput', '1')).body;
    expect(after.blockNumber).toBeGreaterThan(before.blockNumber);
    expect(parseUnits(after.targetAmount, 6)).toBeLessThan(parseUnits(before.targetAmount, 6));
    expect(parseUnits(after.targetAmount, 6)).toBe(await quoterSays(0, after, parseEther('1')));
  });

  it("has a USDT that behaves as Tether's mainnet contract: no bool returned, no non-zero to non-zero approval", async () => {
    const chain = stack.chains[0]!;
    const usdt = new Contract(
      chain.usdt,
      ['function approve(address,uint256)', 'function transfer(address,uint256)', 'function mint(address,uint256)'],
      chain.funder,
    );
    const spender = Wallet.createRandom().address;
    // Nothing comes back from transfer or approve: a caller expecting a bool must not read one.
    const data = usdt.interface.encodeFunctionData('approve', [spender, 1n]);
    expect(await chain.provider.call({ to: chain.usdt, from: chain.funder.address, data })).toBe('0x');
    const nonce = await chain.funder.getNonce('pending');
    await (await usdt.getFunction('approve')(spender, 1n, { nonce })).wait();
    await expect(
      chain.provider.call({
        to: chain.usdt,
        from: chain.funder.address,
        data: usdt.interface.encodeFunctionData('approve', [spender, 2n]),
      }),
    ).rejects.toThrow(/reset the allowance to zero first/);
    await (await usdt.getFunction('approve')(spender, 0n, { nonce: nonce + 1 })).wait();
    expect(
      await chain.provider.call({
        to: chain.usdt,
        from: chain.funder.address,
        data: usdt.interface.encodeFunctionData('transfer', [spender, 0n]),
      }),
    ).toBe('0x');
  });

  it('reports insufficient_balance from the real balance, limit_exceeded over the daily limit, and warns on price impact', async () => {
    expect((await eth('exactInput', '2.5')).body).toMatchObject({
      executable: false,
      notExecutableReason: 'insufficient_balance',
    });
    expect((await eth('exactInput', '1.9')).body).toMatchObject({ executable: true });
    expect((await eth('exactInput', '11')).body).toMatchObject({
      executable: false,
      notExecutableReason: 'limit_exceeded',
    });
    const large = (await eth('exactInput', '300')).body;
    expect(large.priceImpactWarning).toBe(true);
    expect(Number.parseFloat(large.priceImpact)).toBeGreaterThan(3);
    const stranger = await registerUser(stack);
    const strangers = await quote(
      { source: 'ETH', target: 'USDT', networkId: 'ETHEREUM', direction: 'exactInput', amount: '1' },
      stranger,
    );
    expect(strangers.body).toMatchObject({ executable: false, notExecutableReason: 'insufficient_balance' }); // no account, no balance
  });

  it('refuses bad input with a clear reason', async () => {
    expect((await eth('exactInput', '1', { networkId: 'BITCOIN' })).status).toBe(404);
    const refused = async (body: Record<string, string>) => {
      const r = await quote(body);
      expect(r.status).toBe(422);
      return r.body.type as string;
    };
    expect(
      await refused({ source: 'DOGE', target: 'USDT', networkId: 'ETHEREUM', direction: 'exactInput', amount: '1' }),
    ).toBe('/problems/unknown-token');
    expect(
      await refused({ source: 'POL', target: 'USDT', networkId: 'ETHEREUM', direction: 'exactInput', amount: '1' }),
    ).toBe('/problems/unknown-token');
    expect(
      await refused({ source: 'ETH', target: 'ETH', networkId: 'ETHEREUM', direction: 'exactInput', amount: '1' }),
    ).toBe('/problems/same-token');
    expect(
      await refused({
        source: 'USDT',
        target: 'ETH',
        networkId: 'ETHEREUM',
        direction: 'exactInput',
        amount: '1.0000001',
      }),
    ).toBe('/problems/invalid-amount');
    expect(
      await refused({ source: 'ETH', target: 'USDT', networkId: 'ETHEREUM', direction: 'exactInput', amount: '0' }),
    ).toBe('/problems/invalid-amount');
    // More USDT than the pools hold.
    expect(
      await refused({
        source: 'ETH',
        target: 'USDT',
        networkId: 'ETHEREUM',
        direction: 'exactOutput',
        amount: '90000000',
      }),
    ).toBe('/problems/insufficient-liquidity');
    // WBTC trades only against ETH, and POLYGON has no WBTC at all.
    expect(
      await refused({ source: 'WBTC', target: 'USDT', networkId: 'POLYGON', direction: 'exactInput', amount: '1' }),
    ).toBe('/problems/unknown-token');
    expect((await eth('sideways', '1')).status).toBe(400);
    expect((await eth('exactInput', '-1')).status).toBe(422);
    expect((await call(`${stack.apiUrl}/v1/exchange/quote`, { json: { source: 'ETH' } })).status).toBe(401);
  });
});
