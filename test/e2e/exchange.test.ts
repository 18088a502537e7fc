import { Wallet, parseEther } from 'ethers';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, registerUser, type RegisteredUser } from '../helpers/http';
import { bearer, deployAccount } from '../helpers/wallet';

/** Expected figures were computed by hand (exact integer arithmetic) for the built-in pools. */
describe('exchange quotes over the configured pools', () => {
  let stack: TestStack;
  let user: RegisteredUser;
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

  it('quotes exactInput through the pool that pays most, executable within the balance', async () => {
    const { status, body } = await eth('exactInput', '1');
    expect(status).toBe(200);
    expect(body).toEqual({
      source: 'ETH',
      target: 'USDT',
      direction: 'exactInput',
      networkId: 'ETHEREUM',
      sourceAmount: '1',
      targetAmount: '2997.002248',
      sourceDisplayAmount: '1 ETH',
      targetDisplayAmount: '2,997.002248 USDT',
      exchangeRate: '2997.002248',
      priceImpact: '0.04%',
      priceImpactWarning: false,
      route: ['ETH', 'USDT'],
      feeTier: 500,
      intermediary: null,
      slippage: '0.50%',
      minimumReceived: '2982.017236',
      minimumReceivedDisplay: '2,982.017236 USDT',
      executable: true,
      notExecutableReason: null,
    });
  });

  it('quotes exactOutput: the input needed for an exact amount', async () => {
    const { body } = await eth('exactOutput', '3000');
    expect(body).toMatchObject({
      sourceAmount: '1.001000750500312688',
      targetAmount: '3000',
      sourceDisplayAmount: '1.001 ETH',
      feeTier: 500,
      minimumReceived: '3000',
      executable: true,
    });
  });

  it('routes through an intermediary when there is no direct pool', async () => {
    const { body } = await quote({
      source: 'WBTC',
      target: 'USDC',
      networkId: 'ETHEREUM',
      direction: 'exactInput',
      amount: '0.1',
    });
    expect(body).toMatchObject({
      route: ['WBTC', 'ETH', 'USDC'],
      intermediary: 'ETH',
      feeTier: null,
      targetAmount: '8910.625381',
    });
    expect(body).toMatchObject({ executable: false, notExecutableReason: 'insufficient_balance' }); // the account holds no WBTC
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
    expect(
      await refused({
        source: 'ETH',
        target: 'USDT',
        networkId: 'ETHEREUM',
        direction: 'exactOutput',
        amount: '9000000',
      }),
    ).toBe('/problems/insufficient-liquidity');
    expect((await eth('sideways', '1')).status).toBe(400);
    expect((await eth('exactInput', '-1')).status).toBe(422);
    expect((await call(`${stack.apiUrl}/v1/exchange/quote`, { json: { source: 'ETH' } })).status).toBe(401);
  });
});
