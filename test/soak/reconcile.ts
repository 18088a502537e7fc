import { Contract, Interface, type InterfaceAbi } from 'ethers';
import EntryPointArtifact from '@account-abstraction/contracts/artifacts/EntryPoint.json';
import { loadArtifact } from '../../contracts/build';
import {
  BankTranIdEntity,
  ChargeEntity,
  PayoutEntity,
  SignedOperationEntity,
  SolanaSwapEntity,
  TransferEntity,
} from '../../db/entities';
import { call } from '../helpers/http';
import { bankAccountLog, contractAccountLog } from '../helpers/bank';
import type { TransferRequestView } from '../../sandbox/open-banking';
import type { SoakCluster } from './cluster';
import type { Funding, Operation, Person, Recipients } from './people';

export interface Invariant {
  name: string;
  holds: boolean;
  /** The figures it was judged on, and each discrepancy found. */
  figures: string[];
}

const INCLUDED = new Set(['confirmed', 'finalized']);
/** The fee of one signature (what a transfer's cost bound counts besides the amount and rent). */
const LAMPORTS_PER_SIGNATURE = 5000n;
const OPEN_MONEY_WORKFLOW = /charge|payout|transfer|swap|deploy/i;
/** Open by design: each network's finality watch runs for as long as the service does. */
const ALWAYS_OPEN_WORKFLOW = new Set(['transferFinalityWatchWorkflow']);

type Row = Record<string, any>;

/** Everything the reconciliation reads, once the load and the faults have stopped and the work has settled. */
export async function reconcile(
  cluster: SoakCluster,
  people: Person[],
  funding: Funding[],
  operations: Operation[],
  recipients: Recipients,
): Promise<Invariant[]> {
  const { stack } = cluster;
  const em = stack.orm.em.fork();
  const charges = (await em.find(ChargeEntity, {})) as Row[];
  const payouts = (await em.find(PayoutEntity, {})) as Row[];
  const transfers = (await em.find(TransferEntity, {})) as Row[];
  const swaps = (await em.find(SolanaSwapEntity, {})) as Row[];
  // Deployments and EVM swaps: operations the account's owner signed (a prepared one was never sent).
  const signedOps = (await em.find(SignedOperationEntity, { status: { $ne: 'prepared' } })) as Row[];
  const evmSwaps = signedOps.filter((o) => o.kind === 'swap');
  const bankIds = (await em.find(BankTranIdEntity, {})) as Row[];
  const invariants: Invariant[] = [];
  const personOf = new Map(people.map((p) => [p.user.userId, p]));

  // ---- Won: each person's balance against their bank statement ----
  {
    const figures: string[] = [];
    let holds = true;
    let totalBalances = 0n;
    let totalInTransit = 0n;
    let verifications = 0;
    for (const person of people) {
      const statement = await bankAccountLog(stack, person.bank);
      let outflow = 0n; // won that left the person's account for us, net of what came back (verification excluded)
      for (const line of statement.transactions) {
        if (line.amount === 1) {
          verifications += 1;
          continue;
        }
        outflow -= BigInt(line.amount);
      }
      const inTransit = payouts
        .filter((p) => p.userId === person.user.userId && (p.status === 'processing' || p.status === 'needs_review'))
        .reduce((sum, p) => sum + BigInt(p.amount), 0n);
      const answer = await call(`${cluster.apiUrl}/api/v1/balance`, {
        headers: { authorization: `Bearer ${person.user.accessToken}` },
      });
      const balance = BigInt(
        (answer.body?.data?.balances ?? []).find((b: { currency: string }) => b.currency === 'KRW')?.amount ?? '-1',
      );
      totalBalances += balance;
      totalInTransit += inTransit;
      if (balance + inTransit !== outflow) {
        holds = false;
        figures.push(
          `person ${person.index}: balance ${balance} + in transit ${inTransit} ≠ statement's net ${outflow} (bank balance ${statement.balance})`,
        );
      }
    }
    const contract = await contractAccountLog(stack);
    const contractNet =
      contract.transactions.reduce((sum, line) => sum + BigInt(line.amount), 0n) + BigInt(verifications);
    if (totalBalances + totalInTransit !== contractNet) {
      holds = false;
      figures.push(
        `balances ${totalBalances} + in transit ${totalInTransit} ≠ the contract account's net ${contractNet}`,
      );
    }
    figures.unshift(
      `${people.length} people: balances ${totalBalances} KRW + payouts in transit ${totalInTransit} KRW; contract account net of movements ${contractNet} KRW (${verifications} 1 KRW verifications excluded)`,
    );
    invariants.push({ name: 'won balances = bank statements', holds, figures });
  }

  // ---- Ledger: journals balance, nothing negative, accounts = their entries, transit = payouts in transit ----
  {
    const connection = em.getConnection();
    const unbalanced = (await connection.execute(
      'select journal_id, currency, sum(amount) as total from ledger_entries group by journal_id, currency having sum(amount) <> 0',
    )) as Row[];
    const negative = (await connection.execute(
      "select account_id, balance from ledger_accounts where kind = 'user_balance' and balance < 0",
    )) as Row[];
    const drifted = (await connection.execute(
      'select a.account_id, a.balance, coalesce(sum(e.amount), 0) as entries from ledger_accounts a left join ledger_entries e on e.account_id = a.account_id group by a.account_id, a.balance having a.balance <> coalesce(sum(e.amount), 0)',
    )) as Row[];
    const journals = (await connection.execute('select count(*) as n from ledger_journals')) as Row[];
    const transit = (await connection.execute(
      "select coalesce(sum(balance), 0) as total from ledger_accounts where kind = 'payouts_in_transit'",
    )) as Row[];
    const inTransit = payouts
      .filter((p) => p.status === 'processing' || p.status === 'needs_review')
      .reduce((sum, p) => sum + BigInt(p.amount), 0n);
    const figures = [
      `${journals[0]!.n} journals; ${unbalanced.length} unbalanced; ${negative.length} user balances below zero; ${drifted.length} accounts whose balance is not the sum of their entries; payouts-in-transit account ${transit[0]!.total} vs payouts in transit ${inTransit}`,
      ...unbalanced.map((r) => `journal ${r.journal_id} ${r.currency} sums to ${r.total}`),
      ...negative.map((r) => `${r.account_id} is ${r.balance}`),
      ...drifted.map((r) => `${r.account_id}: balance ${r.balance}, entries ${r.entries}`),
    ];
    const transitHolds = BigInt(transit[0]!.total) === inTransit;
    if (!transitHolds) figures.push(`the payouts-in-transit account does not match the payouts in transit`);
    invariants.push({
      name: 'ledger balanced, nothing negative',
      holds: !unbalanced.length && !negative.length && !drifted.length && transitHolds,
      figures,
    });
  }

  // ---- Chains: every balance = funding - transfers out + transfers in +/- swaps - fees ----
  {
    const expected = new Map<string, bigint>();
    /** What explains each balance, for the report when it does not add up. */
    const parts = new Map<string, string[]>();
    const add = (network: string, address: string, token: string, amount: bigint, what = '') => {
      const key = `${network}:${network === 'SOLANA' ? address : address.toLowerCase()}:${token}`;
      expected.set(key, (expected.get(key) ?? 0n) + amount);
      if (what) parts.set(key, [...(parts.get(key) ?? []), `${amount > 0n ? '+' : ''}${amount} ${what}`]);
    };
    for (const f of funding) add(f.network, f.address, f.token, f.amount, 'funding');
    for (const address of recipients.outside.ETHEREUM) {
      add('ETHEREUM', address, 'ETH', 0n);
      add('ETHEREUM', address, 'USDT', 0n);
    }
    for (const address of recipients.outside.SOLANA) {
      add('SOLANA', address, 'SOL', 0n);
      add('SOLANA', address, 'USDT', 0n);
    }
    for (const t of transfers) {
      const landed = INCLUDED.has(t.status);
      if (landed) {
        add(t.networkId, t.fromAddress, t.token, -BigInt(t.amount), `${t.transferId} out`);
        add(t.networkId, t.toAddress, t.token, BigInt(t.amount), `${t.transferId} in`);
      }
      if (t.networkId !== 'SOLANA') continue;
      // What a SOLANA transfer cost its sender in SOL: the fee the cluster charged (recorded once it landed, even
      // failed), and for a token the rent of the recipient's token account it created (its cost bound, less the fee).
      if (t.fee) add('SOLANA', t.fromAddress, 'SOL', -BigInt(t.fee), `${t.transferId} fee`);
      if (landed && t.token !== 'SOL' && t.solanaTransaction?.lamportsCost) {
        const rent = BigInt(t.solanaTransaction.lamportsCost) - LAMPORTS_PER_SIGNATURE;
        if (rent > 0n) add('SOLANA', t.fromAddress, 'SOL', -rent, `${t.transferId} rent`);
      }
    }
    for (const s of swaps) {
      const fee = s.fee ? BigInt(s.fee) : 0n;
      if (s.txHash && fee) add('SOLANA', s.walletAddress, 'SOL', -fee, `${s.swapId} fee`);
      if (s.status !== 'completed' || !s.details.received) continue;
      add('SOLANA', s.walletAddress, s.details.source, -BigInt(s.details.received.amountIn), `${s.swapId} in`);
      add('SOLANA', s.walletAddress, s.details.target, BigInt(s.details.received.amountOut), `${s.swapId} out`);
    }
    for (const o of evmSwaps) {
      const swap = o.details.swap;
      if (o.status !== 'completed' || !swap?.received) continue;
      add(o.networkId, o.accountAddress, swap.source, -BigInt(swap.received.amountIn), `${o.operationId} in`);
      add(o.networkId, o.accountAddress, swap.target, BigInt(swap.received.amountOut), `${o.operationId} out`);
    }
    const ethereum = stack.chains[0]!;
    const usdt = new Contract(ethereum.usdt, loadArtifact('TestUSDT').abi as InterfaceAbi, ethereum.provider);
    const solana = stack.solana!;
    const figures: string[] = [];
    let checked = 0;
    for (const [key, want] of expected) {
      const [network, address, token] = key.split(':') as [string, string, string];
      let have: bigint;
      if (network === 'ETHEREUM')
        have =
          token === 'ETH' ? await ethereum.provider.getBalance(address) : await usdt.getFunction('balanceOf')(address);
      else have = token === 'SOL' ? solana.balance(address) : await solana.tokenBalance(address, solana.usdtMint);
      checked += 1;
      if (have !== want)
        figures.push(
          `${network} ${address} ${token}: chain ${have}, records explain ${want} (${have - want > 0n ? '+' : ''}${have - want}): ${(parts.get(key) ?? []).join(', ')}`,
        );
    }
    const discrepancies = figures.length;
    figures.unshift(
      `${checked} balances (${people.length} people × ETH, USDT on ETHEREUM and SOL, USDT on SOLANA, and ${recipients.outside.ETHEREUM.size + recipients.outside.SOLANA.size} outside addresses); ${discrepancies} differ`,
    );
    invariants.push({ name: 'chain balances = funding and our records', holds: discrepancies === 0, figures });
  }

  // ---- Bank: no bank_tran_id moved money twice; no charge or payout moved money under two ids ----
  {
    // The contract account's statement: every charge's withdrawal and every refund's and payout's deposit books one
    // line there, with the bank_tran_id it moved under.
    const contract = await contractAccountLog(stack);
    const moved = new Map<string, number>();
    for (const line of contract.transactions) moved.set(line.bankTranId, (moved.get(line.bankTranId) ?? 0) + 1);
    const calls = (await call(`${stack.sandboxUrl}/kftc/_transfers`)).body as TransferRequestView[];
    const figures: string[] = [];
    for (const [id, n] of moved) if (n > 1) figures.push(`bank_tran_id ${id} booked ${n} times`);
    for (const row of bankIds) {
      const ids = [
        row.bankTranId,
        ...((row.earlierIds ?? []) as Array<{ bankTranId: string }>).map((e) => e.bankTranId),
      ];
      const landed = ids.filter((id) => moved.has(id));
      if (landed.length > 1) figures.push(`${row.reference} moved money under ${landed.join(', ')}`);
    }
    const bad = figures.length;
    figures.unshift(
      `${calls.length} transfer calls at the centre, ${moved.size} ids that moved money (contract account's statement), ${bankIds.length} references; ${bad} doubled`,
    );
    invariants.push({ name: 'no bank_tran_id moved money twice', holds: bad === 0, figures });
  }

  // ---- Chain: no transfer landed twice; no user operation of ours that our records do not name ----
  {
    const entryPoint = new Interface(EntryPointArtifact.abi as InterfaceAbi);
    const event = entryPoint.getEvent('UserOperationEvent')!;
    const ethereum = stack.chains[0]!;
    const accounts = new Set(people.map((p) => p.evmAccount.toLowerCase()));
    const logs = await ethereum.provider.getLogs({
      address: ethereum.entryPoint,
      topics: [event.topicHash],
      fromBlock: 0,
    });
    const landed = new Map<string, number>();
    /** The bundle transaction each operation landed in. */
    const landedIn = new Map<string, string>();
    let ours = 0;
    for (const log of logs) {
      const parsed = entryPoint.parseLog(log)!;
      if (!accounts.has(String(parsed.args.sender).toLowerCase()) || !parsed.args.success) continue;
      ours += 1;
      landed.set(String(parsed.args.userOpHash), (landed.get(String(parsed.args.userOpHash)) ?? 0) + 1);
      landedIn.set(String(parsed.args.userOpHash), log.transactionHash);
    }
    const figures: string[] = [];
    let named = 0;
    for (const t of transfers.filter((x) => x.networkId === 'ETHEREUM')) {
      const hashes = [
        t.userOpHash,
        ...((t.replacedOperations ?? []) as Array<{ userOpHash: string }>).map((r) => r.userOpHash),
      ].filter(Boolean);
      const count = hashes.reduce((n: number, h: string) => n + (landed.get(h) ?? 0), 0);
      named += count;
      if (count > 1) figures.push(`transfer ${t.transferId} landed ${count} times`);
      if (INCLUDED.has(t.status) && count !== 1)
        figures.push(`transfer ${t.transferId} is ${t.status} but landed ${count} times`);
      if (!INCLUDED.has(t.status) && count > 0)
        figures.push(`transfer ${t.transferId} landed but is recorded ${t.status}: ${t.error ?? ''}`);
    }
    // Deployments and swaps: operations the owner signed (one hash each; a replaced one names its replacement).
    for (const o of signedOps.filter((x) => x.networkId === 'ETHEREUM')) {
      const count = landed.get(o.userOpHash) ?? 0;
      named += count;
      if (count > 1) figures.push(`${o.kind} ${o.operationId} landed ${count} times`);
      if (o.status === 'completed' && count !== 1)
        figures.push(`${o.kind} ${o.operationId} is completed but landed ${count} times`);
      if (o.kind === 'swap' && o.status === 'completed' && !o.details.swap?.received)
        figures.push(
          `swap ${o.operationId} completed without a recorded outcome (${o.error ?? ''}): recorded transaction ${o.txHash}, landed in ${landedIn.get(o.userOpHash) ?? 'none'}`,
        );
      if (o.status !== 'completed' && count > 0)
        figures.push(
          `${o.kind} ${o.operationId} landed but is recorded ${o.status}${o.stallReason ? ` (${o.stallReason})` : ''}${o.replacedBy ? `, replaced by ${o.replacedBy}` : ''}: ${o.error ?? ''}`,
        );
    }
    const unexplained = ours - named;
    if (unexplained !== 0)
      figures.push(`${unexplained} successful user operations of our accounts that no record names`);
    const bad = figures.length;
    const kinds = new Map<string, number>();
    for (const o of signedOps) kinds.set(o.kind, (kinds.get(o.kind) ?? 0) + 1);
    figures.unshift(
      `${ours} successful user operations of our ETHEREUM accounts; our records name ${named} (transfers, ${[...kinds].map(([k, n]) => `${n} ${k}`).join(', ')})`,
    );
    invariants.push({ name: 'no transfer landed twice', holds: bad === 0, figures });
  }

  // ---- Requests answered refused were not executed; every record is one the app was answered ----
  {
    const answered = new Set(operations.map((o) => o.answer?.id).filter(Boolean) as string[]);
    const unknown = operations.filter((o) => o.key && !o.answer);
    const figures: string[] = [];
    const rows: Array<{ id: string; userId: string; kind: string }> = [
      ...charges.map((c) => ({ id: c.chargeId, userId: c.userId, kind: 'charge' })),
      ...payouts.map((p) => ({ id: p.payoutId, userId: p.userId, kind: 'payout' })),
      ...transfers.map((t) => ({ id: t.transferId, userId: t.userId, kind: `transfer ${t.token}` })),
      ...swaps.map((s) => ({ id: s.swapId, userId: s.userId, kind: 'swap' })),
      ...evmSwaps.map((o) => ({ id: o.operationId, userId: o.userId, kind: 'swap' })),
    ];
    let unexplained = 0;
    for (const row of rows) {
      if (answered.has(row.id)) continue;
      const person = personOf.get(row.userId);
      const couldBe = unknown.some((o) => o.person === person?.index && o.kind.startsWith(row.kind.split(' ')[0]!));
      if (!couldBe) {
        unexplained += 1;
        figures.push(`${row.kind} ${row.id} of person ${person?.index ?? row.userId} was never answered to the app`);
      }
    }
    const refused = operations.filter((o) => o.answer && o.answer.status >= 400);
    figures.unshift(
      `${rows.length} records; ${refused.length} requests answered refused; ${unknown.length} with no answer (the app gave up); ${unexplained} records no answer explains`,
    );
    invariants.push({ name: 'nothing refused was executed', holds: unexplained === 0, figures });
  }

  // ---- Idempotency-Key replays answered what the first answer said ----
  {
    const figures: string[] = [];
    let replays = 0;
    for (const op of operations) {
      for (const replay of op.replays) {
        replays += 1;
        if (replay.status !== op.answer!.status || replay.id !== op.answer!.id || replay.type !== op.answer!.type)
          figures.push(
            `op ${op.seq} (${op.kind}, key ${op.key}): first ${op.answer!.status} ${op.answer!.id ?? op.answer!.type}, replay ${replay.status} ${replay.id ?? replay.type}`,
          );
      }
    }
    const bad = figures.length;
    figures.unshift(`${replays} replays; ${bad} answered differently`);
    invariants.push({ name: 'replays answer the same', holds: bad === 0, figures });
  }

  // ---- Every workflow closed, or open for a reason an operator can see ----
  {
    const open = new Map<string, number>();
    const figures: string[] = [];
    let stuck = 0;
    let inReview = 0;
    for (const wf of await openWorkflows(cluster)) {
      open.set(wf.type, (open.get(wf.type) ?? 0) + 1);
      if (wf.state === 'in review') inReview += 1;
      if (wf.state !== 'waiting') continue;
      stuck += 1;
      figures.push(`${wf.type} ${wf.workflowId} still running, not in review`);
    }
    const records = [
      ...charges.filter((c) => c.status === 'processing').map((c) => `charge ${c.chargeId} processing`),
      ...payouts.filter((p) => p.status === 'processing').map((p) => `payout ${p.payoutId} processing`),
      ...transfers
        .filter((t) => ['processing', 'submitted', 'confirmed'].includes(t.status))
        .map((t) => `transfer ${t.transferId} ${t.status}`),
      ...swaps.filter((s) => s.status === 'submitted').map((s) => `swap ${s.swapId} submitted`),
      ...signedOps.filter((o) => o.status === 'submitted').map((o) => `${o.kind} ${o.operationId} submitted`),
    ];
    figures.push(...records.map((r) => `record not final: ${r}`));
    figures.unshift(
      `open workflows by type: ${[...open].map(([t, n]) => `${t} ${n}`).join(', ') || 'none'}; ${inReview} in review; ${stuck} stuck; ${records.length} money records not final`,
    );
    invariants.push({ name: 'no workflow stuck', holds: stuck === 0 && records.length === 0, figures });
  }
  return invariants;
}

/**
 * The cluster's running workflows: `waiting` for a money workflow that should end (a transfer's, a charge's, ...),
 * `in review` for one an operator must decide, `by design` for the rest (each network's finality watch, ...).
 */
async function openWorkflows(
  cluster: SoakCluster,
): Promise<Array<{ type: string; workflowId: string; state: 'waiting' | 'in review' | 'by design' }>> {
  const { stack } = cluster;
  // The cluster's own task queue: the namespace may hold other stacks' workflows (tests share a jest worker's).
  const query = `ExecutionStatus="Running" AND TaskQueue="${stack.taskQueue}"`;
  const open = [];
  for await (const wf of stack.temporal.workflow.list({ query })) {
    const review = wf.searchAttributes?.NeedsReview as unknown[] | undefined;
    const state =
      !OPEN_MONEY_WORKFLOW.test(wf.type) || ALWAYS_OPEN_WORKFLOW.has(wf.type)
        ? ('by design' as const)
        : review?.length
          ? ('in review' as const)
          : ('waiting' as const);
    open.push({ type: wf.type, workflowId: wf.workflowId, state });
  }
  return open;
}

/**
 * What is not settled yet: money records not final (nor in review), and money workflows still running (nor in
 * review). The settle phase waits for none: a workflow whose activity ran on a killed worker waits out its heartbeat
 * timeout (30 s) after the record it moves is final (the watch finalized it meanwhile), and is not stuck for that.
 */
export async function unsettled(cluster: SoakCluster): Promise<number> {
  const waiting = (await openWorkflows(cluster)).filter((wf) => wf.state === 'waiting').length;
  return waiting + (await unsettledRecords(cluster));
}

/** Whether the money records are all final (or in review). */
async function unsettledRecords(cluster: SoakCluster): Promise<number> {
  const em = cluster.stack.orm.em.fork();
  const counts = await Promise.all([
    em.count(ChargeEntity, { status: 'processing' }),
    em.count(PayoutEntity, { status: 'processing' }),
    em.count(TransferEntity, { status: { $in: ['processing', 'submitted', 'confirmed'] } }),
    em.count(SolanaSwapEntity, { status: 'submitted' }),
    em.count(SignedOperationEntity, { status: 'submitted' }),
  ]);
  return counts.reduce((a, b) => a + b, 0);
}
