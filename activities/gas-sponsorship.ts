import type { EntityManager } from '@mikro-orm/core';
import { ApplicationFailure } from '@temporalio/activity';
import { Interface, type InterfaceAbi } from 'ethers';
import EntryPointArtifact from '@account-abstraction/contracts/artifacts/EntryPoint.json';
import type { Orm } from '../db/orm';
import { HotStatement, USER_LOCK } from '../db/sql';
import { GasSponsorshipEntity, gasUsedKrw, type GasSponsorship } from '../db/entities';
import type { EvmNetwork, NetworkRegistry } from '../platform/networks';
import { coinOf } from '../platform/networks';
import { formatMoney, wonValue } from '../platform/money';
import { koreanDay } from '../platform/korean-day';
import { clock } from '../platform/clock';
import { ChainFailure, GasFailure } from '../platform/failures';
import type { PriceFeedClient } from '../integrations/prices/feed';
import { PaymasterSigner, maxCostOf } from '../integrations/evm/paymaster';
import { deserializeOperation, type ChainProviders } from '../integrations/evm/smart-account';
import { userOperationHash, type UserOperation } from '../integrations/evm/user-operation';
import type { UserOperationOutcome } from '../integrations/evm/entry-point';
import type { GasSponsorshipInput } from '../workflows/messages';

export interface GasSponsorDeps {
  orm: Orm;
  networks: NetworkRegistry;
  providers: ChainProviders;
  paymaster: PaymasterSigner;
  prices: PriceFeedClient;
  gasBudgetDailyKrw: number;
}

/** One operation to sponsor: its business id (the same id again returns the same signature), network and operation. */
export interface SponsorItem {
  sponsorshipId: string;
  networkId: string;
  operation: UserOperation;
}

const entryPointEvents = new Interface(EntryPointArtifact.abi as InterfaceAbi);
const USER_OPERATION_EVENT = entryPointEvents.getEvent('UserOperationEvent')!.topicHash;
const won = (amount: bigint) => formatMoney(amount, 0, 'KRW');

/** An item to sponsor with what its budget check needs. */
interface Priced {
  item: SponsorItem;
  network: EvmNetwork;
  price: bigint;
  maxCost: bigint;
  fromBlock: number;
}

/** A user's reservations of the day (every sponsorship asks): prepared on PostgreSQL, mapped as the ORM's find would. */
const RESERVED = new HotStatement(
  'gas-sponsorships-reserved',
  "select * from gas_sponsorships where user_id = ? and status = 'reserved' and created_at >= ?",
);
/**
 * A sponsorship by its id (a transfer's: every transfer is sponsored once, and a retry finds it) and the user's
 * reservations of the day (which a new sponsorship first asks the chain about), in one read.
 */
const SPONSORSHIP_AND_RESERVED = new HotStatement(
  'gas-sponsorship-and-reserved',
  "select * from gas_sponsorships where sponsorship_id = ? or (user_id = ? and status = 'reserved' and created_at >= ?)",
);
/** The user's row locked as USER_LOCK locks it, with its status (a sponsorship only an active user may have). */
const USER_STATUS_LOCK = new HotStatement<{ status: string }>(
  'user-lock-status',
  'select status from users where id = ? for update',
  'select status from users where id = ?',
);
/** Locks the user's row (as USER_LOCK does) and throws `notActive()` unless the user is active. */
const lockActiveUser = async (tx: EntityManager, userId: string, notActive: () => Error): Promise<void> => {
  if ((await USER_STATUS_LOCK.row(tx, [userId]))?.status !== 'active') throw notActive();
};
/** A sponsorship reserved at its most (inside the budget's transaction). */
const RESERVE = new HotStatement(
  'gas-sponsorship-reserve',
  'insert into gas_sponsorships (sponsorship_id, user_id, network_id, user_op_hash, paymaster_and_data, max_cost_wei, ' +
    "price_krw_centi, status, from_block, valid_until, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, 'reserved', ?, ?, ?, ?)",
);
/** What the chain charged for a sponsored operation, recorded once (its receipt's UserOperationEvent). */
const SETTLE = new HotStatement(
  'gas-sponsorship-settle',
  "update gas_sponsorships set status = 'settled', actual_cost_wei = ?, tx_hash = ?, updated_at = ? " +
    "where user_op_hash = ? and status = 'reserved'",
);

/**
 * The service pays gas through its paymaster, within a daily budget per user in won. The sponsor key signs an
 * operation's paymasterAndData only after the budget check; each sponsorship counts at its most until the chain says
 * what it cost. No deposit is ever put on a user's account.
 */
export class GasSponsor {
  constructor(private readonly deps: GasSponsorDeps) {}

  /**
   * paymasterAndData for each item, in order. An item sponsored before answers what it got then, as long as it is the
   * same operation; one rebuilt since (a retry after a crash before anything was signed with it, with fresh fees) is
   * sponsored anew, replacing that unused reservation: the old signature covers the old fees and would be refused.
   */
  async sponsor(
    userId: string,
    items: SponsorItem[],
    validUntil: Date,
    /**
     * `notActive`: only for a user still active; the error thrown otherwise. The user's row is read with the budget's
     * lock, which waits for a closure under way (the fence of activities/account.ts's userIsActive, in the same
     * round trip).
     */
    options: { notActive?: () => Error } = {},
  ): Promise<string[]> {
    const em = this.deps.orm.em.fork();
    const since = koreanDay().from;
    // One item (a transfer's operation): it and the user's reservations of the day in one prepared read. Several (a
    // deployment's networks): by the ORM, the reservations when they are needed.
    let rows: GasSponsorship[];
    let reserved: GasSponsorship[] | undefined;
    let pricing: Promise<Priced[]> | undefined;
    if (items.length === 1) {
      const sponsorshipId = items[0]!.sponsorshipId;
      // The price and the chain's head asked beside the read: a new sponsorship (the usual case) needs them.
      pricing = this.priced(items);
      pricing.catch(() => undefined); // awaited only for a new sponsorship
      const read = await SPONSORSHIP_AND_RESERVED.entities(em, GasSponsorshipEntity, [sponsorshipId, userId, since]);
      rows = read.filter((row) => row.sponsorshipId === sponsorshipId);
      reserved = read.filter(
        (row) => row.userId === userId && row.status === 'reserved' && row.createdAt.getTime() >= since.getTime(),
      );
    } else {
      rows = await em.find(GasSponsorshipEntity, { sponsorshipId: { $in: items.map((i) => i.sponsorshipId) } });
    }
    const known = new Map<string, string>();
    for (const row of rows) {
      const item = items.find((i) => i.sponsorshipId === row.sponsorshipId)!;
      if (this.hashOf(item, row.paymasterAndData) === row.userOpHash)
        known.set(row.sponsorshipId, row.paymasterAndData);
    }
    const fresh = items.filter((item) => !known.has(item.sponsorshipId));
    if (fresh.length) {
      await this.settleReserved(em, reserved ?? (await RESERVED.entities(em, GasSponsorshipEntity, [userId, since])));
      // Only a reservation found here for an operation since rebuilt has to give way (one written meanwhile by another
      // attempt of the same sponsorship makes this one's insert fail on its id, and the retry finds it).
      const rebuilt = rows.filter((row) => !known.has(row.sponsorshipId)).map((row) => row.sponsorshipId);
      const priced = pricing && fresh.length === items.length ? await pricing : await this.priced(fresh);
      for (const [id, data] of await this.signWithinBudget(userId, priced, validUntil, rebuilt, options.notActive))
        known.set(id, data);
    } else if (options.notActive) {
      // Each sponsored before (a retry of a transfer signed by no earlier attempt): the fence all the same, or a user
      // suspended since would get the old sponsorship and their operation signed.
      await this.deps.orm.em.fork().transactional((tx) => lockActiveUser(tx, userId, options.notActive!));
    }
    return items.map((item) => known.get(item.sponsorshipId)!);
  }

  /** Records what the chain charged for a sponsored operation (its UserOperationEvent). */
  async settle(outcome: UserOperationOutcome): Promise<void> {
    await SETTLE.rows(this.deps.orm.em.fork(), [
      outcome.actualGasCost.toString(),
      outcome.txHash,
      clock.date(),
      outcome.userOpHash,
    ]);
  }

  /** Each item's network, coin price, most it can cost and the chain's head (where its reservation looks from). */
  private priced(items: SponsorItem[]): Promise<Priced[]> {
    return Promise.all(
      items.map(async (item) => {
        const network = this.network(item.networkId);
        const provider = this.deps.providers.for(network);
        // The price (the database, the market data's kept answer) and the chain's head asked side by side.
        const [price, fromBlock] = await Promise.all([this.coinPrice(network), provider.getBlockNumber()]);
        return { item, network, price, maxCost: maxCostOf(item.operation), fromBlock };
      }),
    );
  }

  private async signWithinBudget(
    userId: string,
    priced: Priced[],
    validUntil: Date,
    rebuilt: string[],
    notActive?: () => Error,
  ): Promise<Array<[string, string]>> {
    const { orm, paymaster } = this.deps;
    const budget = BigInt(this.deps.gasBudgetDailyKrw);
    return orm.em.fork().transactional(async (tx) => {
      // One budget check at a time per user, so two operations at once cannot both fit what is left.
      if (notActive) await lockActiveUser(tx, userId, notActive);
      else await USER_LOCK.lock(tx, userId);
      // Reservations of operations since rebuilt were never used (see sponsor): they give way to the new ones.
      if (rebuilt.length)
        await tx.nativeDelete(GasSponsorshipEntity, { sponsorshipId: { $in: rebuilt }, status: 'reserved' });
      const day = koreanDay();
      const used = await gasUsedKrw(tx, userId, day);
      const needed = priced.reduce((sum, p) => sum + wonValue(p.maxCost, 18, p.price), 0n);
      if (used + needed > budget) {
        const left = budget > used ? budget - used : 0n;
        throw ApplicationFailure.create({
          type: GasFailure.BudgetExceeded,
          nonRetryable: true,
          message: `Gas is sponsored up to ${won(budget)} a day; ${won(used)} used today, ${won(left)} left until ${day.to.toISOString()}; this needs up to ${won(needed)}.`,
          details: [
            {
              budgetKrw: budget.toString(),
              usedKrw: used.toString(),
              neededKrw: needed.toString(),
              resetsAt: day.to.toISOString(),
            },
          ],
        });
      }
      const signed: Array<[string, string]> = [];
      for (const { item, network, price, maxCost, fromBlock } of priced) {
        const paymasterAndData = paymaster.sign(item.operation, network, Math.floor(validUntil.getTime() / 1000));
        const now = clock.date();
        await RESERVE.rows(tx, [
          item.sponsorshipId,
          userId,
          network.networkId,
          this.hashOf(item, paymasterAndData),
          paymasterAndData,
          maxCost.toString(),
          price,
          fromBlock,
          validUntil,
          now,
          now,
        ]);
        signed.push([item.sponsorshipId, paymasterAndData]);
      }
      return signed;
    });
  }

  /** Asks the chain about the user's reservations: landed ones count what they cost, expired unlanded ones nothing. */
  private async settleReserved(em: EntityManager, reserved: GasSponsorship[]): Promise<void> {
    if (!reserved.length) return;
    for (const row of reserved) await this.settleFromChain(row);
    await em.flush();
  }

  private async settleFromChain(row: GasSponsorship): Promise<void> {
    const network = this.network(row.networkId);
    const provider = this.deps.providers.for(network);
    const latest = await provider.getBlock('latest');
    const [log] = await provider.getLogs({
      address: network.entryPoint,
      topics: [USER_OPERATION_EVENT, row.userOpHash],
      fromBlock: row.fromBlock,
    });
    if (log) {
      const event = entryPointEvents.parseLog(log)!;
      Object.assign(row, {
        status: 'settled',
        actualCostWei: (event.args.actualGasCost as bigint).toString(),
        txHash: log.transactionHash,
      });
    } else if (latest && latest.timestamp * 1000 > row.validUntil.getTime()) {
      // The chain is past the sponsorship's validity and the operation never ran: the EntryPoint refuses it from now on.
      row.status = 'released';
    }
  }

  private hashOf(item: SponsorItem, paymasterAndData: string): string {
    const network = this.network(item.networkId);
    return userOperationHash({ ...item.operation, paymasterAndData }, network.chainId, network.entryPoint);
  }

  private async coinPrice(network: EvmNetwork): Promise<bigint> {
    const { symbol } = coinOf(network);
    const price = await this.deps.prices.wonPrice(symbol);
    if ('refused' in price) {
      throw ApplicationFailure.create({
        type: GasFailure.PriceUnavailable,
        nonRetryable: true,
        message: `No ${symbol} price in won can be had now (${price.refused}), so gas cannot be sponsored; try again later`,
      });
    }
    return price.centi;
  }

  private network(networkId: string): EvmNetwork {
    const network = this.deps.networks.get(networkId);
    if (!network)
      throw ApplicationFailure.create({
        type: ChainFailure.UnknownNetwork,
        message: `network ${networkId} is not configured`,
        nonRetryable: true,
      });
    return network;
  }
}

/** The activity behind gas-sponsorship-<id>: the API asks for paymasterAndData before the owner signs. */
export const createGasSponsorshipActivities = ({ gasSponsor }: { gasSponsor: GasSponsor }) => ({
  async sponsorOperations(input: GasSponsorshipInput): Promise<string[]> {
    return gasSponsor.sponsor(
      input.userId,
      input.operations.map((o) => ({
        sponsorshipId: o.sponsorshipId,
        networkId: o.networkId,
        operation: deserializeOperation(o.userOperation),
      })),
      new Date(input.validUntil),
    );
  },
});

export type GasSponsorshipActivities = ReturnType<typeof createGasSponsorshipActivities>;
