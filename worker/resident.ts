/**
 * The part of the worker that is there from its start: the clients the resident activities use (activities/resident.ts:
 * the finality watches and the sanctions list's download, what a worker at rest runs) and the activities' table, in
 * which every other activity is opened on its first use, with the ORM (worker/main.ts). This module loads no ORM and
 * none of the other activities' modules.
 */
import { parseJsonSettings, type WorkerConfig } from '../platform/config';
import { DataEncryption } from '../platform/data-encryption';
import { NetworkRegistry } from '../platform/networks';
import { SdnListClient } from '../integrations/sanctions';
import type { ResidentDatabase } from '../db/resident';
import type { Orm } from '../db/orm';
import type { BankTranIdBook } from '../integrations/bank/kftc-tran-ids';
import {
  bankRailFrom,
  idCardAuthenticityFrom,
  idCardReaderFrom,
  mailerFrom,
  marketDataFrom,
  travelRuleFrom,
} from '../integrations/providers';
import { ACTIVITY_CAPABILITY, type ActivityName } from '../workflows/capabilities';
import type { Activities } from '../activities';

/** The SDN advanced XML is about 100 MB: ten minutes to read it, and no more than 1 GiB. */
const SDN_LIST_TIMEOUT_MS = 10 * 60_000;
const SDN_LIST_MAX_BYTES = 1024 * 1024 * 1024;

export type ResidentParts = ReturnType<typeof composeResident>;

/**
 * The clients built at the worker's start (worker/composition.ts builds the rest around them when an activity first
 * needs them): the resident activities' and every provider's client from its settings, so that a setting that cannot
 * be used (a bad JSON value, a TLS file that cannot be read) stops the worker at start, not at a first transfer. `orm`:
 * the ORM, opened when first asked for (the bank's transaction-id book is stored through it).
 */
export function composeResident(config: WorkerConfig, resident: ResidentDatabase, orm: () => Promise<Orm>) {
  const tranIds = openedOnUse<BankTranIdBook>(async () =>
    (await import('../db/bank-tran-ids')).storedBankTranIds(await orm()),
  );
  const settings = parseJsonSettings({
    networks: () => NetworkRegistry.fromJson(config.NETWORKS),
    marketData: () => marketDataFrom(config),
    travelRule: () => travelRuleFrom(config),
    mail: () => mailerFrom(config),
    idCardReader: () => idCardReaderFrom(config),
    idCardCheck: () => idCardAuthenticityFrom(config),
    bank: () => bankRailFrom(config, { tranIds }),
  });
  return {
    ...settings,
    resident,
    encryption: new DataEncryption(config.DATA_ENCRYPTION_KEY),
    sdnList: new SdnListClient({
      url: config.SANCTIONS_LIST_URL,
      timeoutMs: SDN_LIST_TIMEOUT_MS,
      maxBytes: SDN_LIST_MAX_BYTES,
    }),
  };
}

type ActivityFunction = (...args: unknown[]) => Promise<unknown>;

/** An object of async methods whose calls wait for `open` (run once, on the first call) and go to what it opened. */
function openedOnUse<T extends object>(open: () => Promise<T>): T {
  const opened = openedOnce(open);
  return new Proxy({} as T, {
    // Not a promise itself (no `then`): only its methods are.
    get: (_, name) =>
      name === 'then' || typeof name === 'symbol'
        ? undefined
        : async (...args: unknown[]) => {
            const target = await opened();
            return (target[name as keyof T] as ActivityFunction).apply(target, args);
          },
  });
}

/**
 * Every activity of the service (workflows/capabilities.ts names them all): the resident ones as they are, each of the
 * others a call that waits for `load` (the ORM and the activities' modules, opened once) and runs the loaded one.
 */
export function activitiesByUse(resident: Partial<Activities>, load: () => Promise<Activities>): Activities {
  const table: Record<string, ActivityFunction> = {};
  for (const name of Object.keys(ACTIVITY_CAPABILITY) as ActivityName[]) {
    const own = resident[name] as ActivityFunction | undefined;
    table[name] = own ?? (async (...args: unknown[]) => ((await load())[name] as ActivityFunction)(...args));
  }
  return table as unknown as Activities;
}

/**
 * `open` run once, its answer kept; a failed run (the database unreachable as the ORM opens) is not kept, so the next
 * call tries again, as Temporal retries the activity that asked.
 */
export function openedOnce<T>(open: () => Promise<T>): { (): Promise<T>; opened(): T | undefined } {
  let pending: Promise<T> | undefined;
  let value: T | undefined;
  const get = () =>
    (pending ??= open().then(
      (opened) => (value = opened),
      (error: unknown) => {
        pending = undefined;
        throw error;
      },
    ));
  return Object.assign(get, { opened: () => value });
}
