import { unreachableEthereum } from '../helpers/networks';
import {
  parseTransfer,
  runChecks,
  type TransferCheck,
  type TransferIntent,
  type TransferLedger,
} from '../../api/transfer/intent';
import { gasBudgetLeft, perTransferLimit, recipientScreening } from '../../api/transfer/checks';
import { problems } from '../../api/http/problems';

const networks = unreachableEthereum({ USDT: { address: '0x0000000000000000000000000000000000000003', decimals: 6 } });

const ledger: TransferLedger = {
  decimalsOf: (symbol) => {
    if (symbol === 'ETH') return 18;
    if (symbol === 'USDT') return 6;
    throw problems.unprocessable('unknown-token', symbol);
  },
  record: async () => {
    throw new Error('not recorded in these tests');
  },
};
const LIMITS = { perTransferKrw: 5_000_000n, dailyKrw: 20_000_000n, passkeyAboveKrw: 1_000_000n };
const parse = (
  fields: Partial<{ to_address: string; network: 'ETHEREUM' | 'POLYGON' | 'SOLANA'; token: string; amount: string }>,
) =>
  parseTransfer(
    {
      networks,
      ledgerFor: () => ledger,
      value: async (_token, amount, decimals) => (amount * 4_200_000n) / 10n ** BigInt(decimals),
      limits: async () => LIMITS,
    },
    'usr_1',
    {
      to_address: '0x983a81ca6fb1e441266d2fbcb7d8e530ac2e05a2',
      network: 'ETHEREUM',
      token: 'ETH',
      amount: '0.5',
      ...fields,
    },
  );

describe('a transfer request parsed once into its intent', () => {
  it('normalizes the recipient once, resolves the token, reads the amount in base units and values it', async () => {
    const { intent } = await parse({});
    expect(intent).toMatchObject({
      userId: 'usr_1',
      recipient: '0x983a81ca6FB1e441266D2FbcB7D8E530AC2E05A2',
      token: 'ETH',
      decimals: 18,
      amount: 500_000_000_000_000_000n,
      valueKrw: 2_100_000n,
      limits: LIMITS,
    });
    expect(intent.network.networkId).toBe('ETHEREUM');
    expect(intent.requested.to_address).toBe('0x983a81ca6fb1e441266d2fbcb7d8e530ac2e05a2'); // as sent: what the PIN binds
    expect((await parse({ token: 'USDT', amount: '12.5' })).intent).toMatchObject({ decimals: 6, amount: 12_500_000n });
  });

  it('refuses what cannot be a transfer, each with its own problem', async () => {
    await expect(parse({ to_address: '0x1234' })).rejects.toMatchObject({ status: 422, type: 'invalid-address' });
    await expect(parse({ token: 'DOGE' })).rejects.toMatchObject({ status: 422, type: 'unknown-token' });
    await expect(parse({ amount: '0.1234567890123456789' })).rejects.toMatchObject({ type: 'invalid-amount' }); // a domain error: 422 where it is mapped
    await expect(parse({ network: 'POLYGON' })).rejects.toMatchObject({ status: 503 });
    await expect(parse({ network: 'SOLANA', to_address: 'not-base58!' })).rejects.toMatchObject({
      status: 422,
      type: 'invalid-address',
    });
  });
});

describe('transfer checks', () => {
  const intentOf = async () => (await parse({})).intent;

  it('run at their stages: the first ones alone, the rest side by side, the refusal listed first counting', async () => {
    const ran: string[] = [];
    const check = (name: string, stages: TransferCheck['stages'], refuse = false, first = false): TransferCheck => ({
      name,
      stages,
      first,
      run: async (_intent, stage) => {
        ran.push(`${name}@${stage}`);
        if (refuse) throw problems.unprocessable(name, 'no');
      },
    });
    const checks = [
      check('a', ['prepare', 'execute'], false, true),
      check('b', ['execute']),
      check('c', ['prepare', 'execute'], true),
      check('d', ['prepare', 'execute'], true),
    ];
    await expect(runChecks(checks, 'prepare', await intentOf())).rejects.toMatchObject({ type: 'c' });
    expect(ran).toEqual(['a@prepare', 'c@prepare', 'd@prepare']);
    ran.length = 0;
    await expect(runChecks(checks, 'execute', await intentOf())).rejects.toMatchObject({ type: 'c' });
    expect(ran).toEqual(['a@execute', 'b@execute', 'c@execute', 'd@execute']);
    // A first check's refusal starts no other.
    ran.length = 0;
    await expect(
      runChecks([check('a', ['execute'], true, true), check('b', ['execute'])], 'execute', await intentOf()),
    ).rejects.toMatchObject({ type: 'a' });
    expect(ran).toEqual(['a@execute']);
  });

  it('answer the refusal listed first even when a later one answers before it, having run them side by side', async () => {
    const events: string[] = [];
    const after = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const slow = (name: string, ms: number): TransferCheck => ({
      name,
      stages: ['execute'],
      run: async () => {
        events.push(`${name}:start`);
        await after(ms);
        events.push(`${name}:end`);
        throw problems.unprocessable(name, 'no');
      },
    });
    await expect(
      runChecks([slow('screening', 30), slow('budget', 1)], 'execute', await intentOf()),
    ).rejects.toMatchObject({ type: 'screening' });
    expect(events).toEqual(['screening:start', 'budget:start', 'budget:end', 'screening:end']);
  });

  it('the per-transfer limit is the one check run first', () => {
    expect(perTransferLimit({ assertPerTransfer: async () => undefined }).first).toBe(true);
    expect(recipientScreening({ assertNotSanctioned: async () => undefined }).first).toBeUndefined();
  });

  it("per-transfer limit: asks the policy with the intent's won value and the user's limits read with it", async () => {
    const asked: Array<[bigint, unknown]> = [];
    await perTransferLimit({
      assertPerTransfer: async (value, limits) => {
        asked.push([value, limits]);
      },
    }).run(await intentOf(), 'prepare');
    expect(asked).toEqual([[2_100_000n, LIMITS]]);
  });

  it('sanctions screening: screens the normalized recipient on its network, saying where', async () => {
    const asked: unknown[] = [];
    const check = recipientScreening({
      assertNotSanctioned: async (...args) => {
        asked.push(args);
      },
    });
    await check.run(await intentOf(), 'execute');
    expect(asked).toEqual([
      ['usr_1', 'ETHEREUM', '0x983a81ca6FB1e441266D2FbcB7D8E530AC2E05A2', { context: 'execute' }],
    ]);
    expect(check.stages).toEqual(['prepare', 'execute']);
  });

  it('gas budget: EVM transfers at execute only', async () => {
    const asked: string[] = [];
    const check = gasBudgetLeft({
      assertBudgetLeft: async (userId) => {
        asked.push(userId);
      },
    });
    expect(check.stages).toEqual(['execute']);
    await check.run(await intentOf(), 'execute');
    await check.run(
      { ...(await intentOf()), network: { kind: 'solana', networkId: 'SOLANA' } } as unknown as TransferIntent,
      'execute',
    );
    expect(asked).toEqual(['usr_1']);
  });
});
