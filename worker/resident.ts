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
import { ACTIVITY_CAPABILITY, type ActivityName } from '../workflows/capabilities';
import type { Activities } from '../activities';

/** The SDN advanced XML is about 100 MB: ten minutes to read it, and no more than 1 GiB. */
const SDN_LIST_TIMEOUT_MS = 10 * 60_000;
const SDN_LIST_MAX_BYTES = 1024 * 1024 * 1024;

export interface ResidentParts {
  resident: ResidentDatabase;
  encryption: DataEncryption;
  networks: NetworkRegistry;
  sdnList: SdnListClient;
}

/** The resident clients, built once (worker/composition.ts builds the rest around them). */
export function composeResident(config: WorkerConfig, resident: ResidentDatabase): ResidentParts {
  const { networks } = parseJsonSettings({ networks: () => NetworkRegistry.fromJson(config.NETWORKS) });
  return {
    resident,
    encryption: new DataEncryption(config.DATA_ENCRYPTION_KEY),
    networks,
    sdnList: new SdnListClient({
      url: config.SANCTIONS_LIST_URL,
      timeoutMs: SDN_LIST_TIMEOUT_MS,
      maxBytes: SDN_LIST_MAX_BYTES,
    }),
  };
}

type ActivityFunction = (...args: unknown[]) => Promise<unknown>;

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
