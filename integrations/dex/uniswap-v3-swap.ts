/**
 * A Uniswap v3 swap as the calls of one user operation of the person's smart account (its `executeBatch`), through
 * SwapRouter (v3-periphery 1.4.4) and nothing else:
 *   - a token in: approve the router for exactly what may be taken (the input, or amountInMaximum), swap, and set the
 *     approval back to zero (Tether refuses a non-zero to non-zero approval, and nothing stays approved);
 *   - the coin in: the router's multicall with the coin as value (it wraps it), then refundETH for what an exact
 *     output did not need;
 *   - the coin out: the router receives the wrapped coin and unwrapWETH9 pays the account at least the minimum.
 * The signed minimum (amountOutMinimum) or maximum (amountInMaximum) is the quote's: the router reverts past it.
 *
 * What a swap really did is read from the pools' Swap events in its transaction: what the first hop's pool took and
 * what the last hop's pool gave.
 */
import { Interface, type Log } from 'ethers';
import { encodePath, type Direction, type RouteHop } from './uniswap-v3';

const ROUTER = new Interface([
  'function exactInput((bytes path, address recipient, uint256 deadline, uint256 amountIn, uint256 amountOutMinimum) params) payable returns (uint256 amountOut)',
  'function exactOutput((bytes path, address recipient, uint256 deadline, uint256 amountOut, uint256 amountInMaximum) params) payable returns (uint256 amountIn)',
  'function multicall(bytes[] data) payable returns (bytes[] results)',
  'function unwrapWETH9(uint256 amountMinimum, address recipient) payable',
  'function refundETH() payable',
]);
/** Tether's approve returns nothing: the call is encoded without an answer to read. */
const ERC20 = new Interface(['function approve(address spender, uint256 amount)']);
const POOL = new Interface([
  'event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)',
]);

export interface SwapCall {
  target: string;
  value: bigint;
  data: string;
}

export interface SwapPlan {
  account: string;
  router: string;
  wrappedNative: string;
  hops: RouteHop[];
  direction: Direction;
  /** exactInput: the input; exactOutput: the most the swap may take (amountInMaximum). */
  maximumIn: bigint;
  /** exactInput: the least it may give (amountOutMinimum); exactOutput: the output. */
  minimumOut: bigint;
  /** The input is the network's coin (sent as value, wrapped by the router). */
  coinIn: boolean;
  /** The output is the network's coin (unwrapped to the account). */
  coinOut: boolean;
  /** Unix seconds after which the router refuses it. */
  deadline: number;
}

export function swapCalls(plan: SwapPlan): SwapCall[] {
  const recipient = plan.coinOut ? plan.router : plan.account;
  const path = encodePath(plan.hops, plan.direction);
  const swap =
    plan.direction === 'exactInput'
      ? ROUTER.encodeFunctionData('exactInput', [
          { path, recipient, deadline: plan.deadline, amountIn: plan.maximumIn, amountOutMinimum: plan.minimumOut },
        ])
      : ROUTER.encodeFunctionData('exactOutput', [
          { path, recipient, deadline: plan.deadline, amountOut: plan.minimumOut, amountInMaximum: plan.maximumIn },
        ]);
  const inner = [swap];
  if (plan.coinOut) inner.push(ROUTER.encodeFunctionData('unwrapWETH9', [plan.minimumOut, plan.account]));
  if (plan.coinIn && plan.direction === 'exactOutput') inner.push(ROUTER.encodeFunctionData('refundETH'));
  const routed: SwapCall = {
    target: plan.router,
    value: plan.coinIn ? plan.maximumIn : 0n,
    data: inner.length === 1 ? swap : ROUTER.encodeFunctionData('multicall', [inner]),
  };
  if (plan.coinIn) return [routed];
  const tokenIn = plan.hops[0]!.tokenIn.address;
  return [
    { target: tokenIn, value: 0n, data: ERC20.encodeFunctionData('approve', [plan.router, plan.maximumIn]) },
    routed,
    { target: tokenIn, value: 0n, data: ERC20.encodeFunctionData('approve', [plan.router, 0n]) },
  ];
}

/** What the swap took and gave, from its pools' Swap events (undefined when its transaction holds none of them). */
export function swapOutcome(
  hops: Array<Pick<RouteHop, 'pool'> & { tokenIn: { address: string }; tokenOut: { address: string } }>,
  logs: Array<Pick<Log, 'address' | 'topics' | 'data'>>,
): { amountIn: bigint; amountOut: bigint } | undefined {
  const swapOf = (pool: string) => {
    const log = logs.find(
      (l) => l.address.toLowerCase() === pool.toLowerCase() && l.topics[0] === POOL.getEvent('Swap')!.topicHash,
    );
    if (!log) return undefined;
    const parsed = POOL.parseLog(log)!;
    return { amount0: parsed.args.getValue('amount0') as bigint, amount1: parsed.args.getValue('amount1') as bigint };
  };
  const first = hops[0]!;
  const last = hops[hops.length - 1]!;
  const taken = swapOf(first.pool);
  const given = swapOf(last.pool);
  if (!taken || !given) return undefined;
  // The pool's deltas: positive is what it received, negative what it paid; token0 is the lower address.
  const isToken0 = (token: string, other: string) => BigInt(token) < BigInt(other);
  const amountIn = isToken0(first.tokenIn.address, first.tokenOut.address) ? taken.amount0 : taken.amount1;
  const amountOut = isToken0(last.tokenOut.address, last.tokenIn.address) ? given.amount0 : given.amount1;
  return { amountIn, amountOut: -amountOut };
}
