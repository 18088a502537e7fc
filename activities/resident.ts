import { ApplicationFailure, Context } from '@temporalio/activity';
import type { ResidentDatabase } from '../db/resident';
import { Statement } from '../db/statement';
import { replaceSanctionsList } from '../db/sanctions-list';
import { OFAC_SDN, type SdnListClient } from '../integrations/sanctions';
import { confirmationsOf, type NetworkRegistry } from '../platform/networks';

/**
 * The activities a worker runs at rest: each network's finality watch (a look every second) and the sanctions list's
 * download. They read and write through the resident database (db/resident.ts) and load nothing else until they need
 * it, so a worker with nothing to do holds no ORM (worker/main.ts opens it, and the other activities, on first use).
 */
export interface ResidentActivityDeps {
  resident: ResidentDatabase;
  networks: NetworkRegistry;
  sdnList: SdnListClient;
  /** The looks at a waiting transfer (activities/transfer.ts createFinalityLooks), asked for once one is waiting. */
  finalityLooks: () => Promise<FinalityLooks>;
}

/** A confirmed transfer as the finality watch reads it. */
export interface WaitingTransfer {
  transferId: string;
  userId: string;
  networkId: string;
  blockNumber: number | null;
  blockHash: string | null;
  txHash: string | null;
  userOpHash: string | null;
}

/** One round's reads shared by its transfers: each block's operations and each height's hash, read once. */
export interface FinalityRound {
  operations: Map<string, Promise<Map<string, string> | null>>;
  hashes: Map<number, Promise<string | null>>;
}

export interface FinalityLooks {
  /** One full look at a confirmed transfer (its receipt and block); `moved` when it is no longer confirmed. */
  finalityOnce(transferId: string): Promise<'finalized' | 'pending' | 'reorged' | 'moved'>;
  /** The quick look of a transfer deep enough on an EVM chain; null when only the full look can tell. */
  finalIfStillThere(transfer: WaitingTransfer, round: FinalityRound): Promise<'finalized' | 'moved' | null>;
  /** An EVM chain's head. */
  head(networkId: string): Promise<{ hash: string; number: string } | null>;
}

const FINALITY_POLL_MS = 1_000;
/** How long one watchFinality attempt follows its network before its workflow records a round (and may continue as new). */
const WATCH_ROUND_MS = 5 * 60_000;
/** The confirmed transfers one look of the watch reads, oldest block first; the rest at the next look. */
const WATCH_BATCH = 500;

/** A network's confirmed transfers, oldest block first (through the index on network_id and status). */
const WAITING = new Statement<{
  transfer_id: string;
  user_id: string;
  network_id: string;
  block_number: string | number | null;
  block_hash: string | null;
  tx_hash: string | null;
  user_op_hash: string | null;
}>(
  'finality-watch-waiting',
  'select transfer_id, user_id, network_id, block_number, block_hash, tx_hash, user_op_hash from transfers ' +
    "where network_id = ? and status = 'confirmed' order by block_number asc limit ?",
);

/** Heartbeats when run as an activity (the list download can take minutes); nothing otherwise. */
const beat = (details: unknown) => {
  try {
    Context.current().heartbeat(details);
  } catch {
    /* not in an activity */
  }
};

export const createResidentActivities = (deps: ResidentActivityDeps) => ({
  /**
   * Reads the SDN list from SANCTIONS_LIST_URL and replaces the stored one in one transaction (addresses delisted since
   * go too). A download or parse that fails stores nothing: screening keeps the last list until it is too old.
   */
  async refreshSanctionsList(): Promise<{
    listDate: string;
    addresses: number;
    added: number;
    removed: number;
    unchanged: boolean;
  }> {
    const read = await deps.sdnList.read((bytes) => beat({ bytes }));
    const result = await replaceSanctionsList(deps.resident, OFAC_SDN.source, read, deps.sdnList.url);
    return { listDate: read.listDate, addresses: read.addresses.size, ...result };
  },

  /**
   * One network's finality watch (transferFinalityWatchWorkflow): follows the chain for every confirmed transfer on
   * it at once, finalizing each once it is final (as awaitFinality does for one), for up to `forMs`; answers early
   * with the transfers a reorg removed, which the watch workflow hands to transfer-finality-<id> to send again. Idle,
   * it reads the database once a second; with transfers waiting, an EVM chain's head once a second, and each transfer
   * only once its block is deep enough: the hash at its block's height and that block's operations, read once per
   * block for all its transfers (finalIfStillThere), else its own receipt and block (finalityOnce: a reorg below that
   * depth is seen there too).
   */
  async watchFinality({
    networkId,
    forMs = WATCH_ROUND_MS,
  }: {
    networkId: string;
    forMs?: number;
  }): Promise<{ reorged: Array<{ transferId: string; userId: string }>; finalized: number }> {
    const evm = deps.networks.get(networkId);
    if (!evm && !deps.networks.solana(networkId))
      throw ApplicationFailure.create({ nonRetryable: true, message: `no network ${networkId} is configured` });
    const until = performance.now() + forMs;
    let finalized = 0;
    // EVM: the head the last look was made at, and the transfers looked at there: while it stands, none of theirs
    // can have changed (depth, block); a transfer confirmed since, in that very block too, is looked at once.
    let lastHead: string | null = null;
    let lookedAt = new Set<string>();
    for (;;) {
      Context.current().heartbeat();
      const waiting: WaitingTransfer[] = (await deps.resident.rows(WAITING, [networkId, WATCH_BATCH])).map((row) => ({
        transferId: row.transfer_id,
        userId: row.user_id,
        networkId: row.network_id,
        blockNumber: row.block_number === null ? null : Number(row.block_number),
        blockHash: row.block_hash,
        txHash: row.tx_hash,
        userOpHash: row.user_op_hash,
      }));
      if (waiting.length > 0) {
        const looks = await deps.finalityLooks();
        const head = evm ? await looks.head(networkId) : null;
        if (head && head.hash !== lastHead) [lastHead, lookedAt] = [head.hash, new Set()];
        const fresh = waiting.filter((t) => !lookedAt.has(t.transferId));
        if (!evm || (head && fresh.length > 0)) {
          const reorged: Array<{ transferId: string; userId: string }> = [];
          const round: FinalityRound = { operations: new Map(), hashes: new Map() };
          for (const transfer of evm ? fresh : waiting) {
            if (evm) lookedAt.add(transfer.transferId);
            // EVM: not deep enough yet at this head; a reorg that removes it meanwhile is seen at that depth.
            if (evm && head && Number(BigInt(head.number)) - (transfer.blockNumber ?? 0) + 1 < confirmationsOf(evm))
              continue;
            const state =
              (evm && (await looks.finalIfStillThere(transfer, round))) ||
              (await looks.finalityOnce(transfer.transferId));
            if (state === 'finalized') finalized += 1;
            if (state === 'reorged') reorged.push({ transferId: transfer.transferId, userId: transfer.userId });
          }
          if (reorged.length > 0) return { reorged, finalized };
        }
      }
      if (performance.now() >= until) return { reorged: [], finalized };
      // Cancellable: a worker shutting down cancels the watch at once and the next worker takes it up.
      await Context.current().sleep(FINALITY_POLL_MS);
    }
  },
});

export type ResidentActivities = ReturnType<typeof createResidentActivities>;
