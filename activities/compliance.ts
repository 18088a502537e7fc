import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Orm } from '../db/orm';
import { TransferEntity } from '../db/entities';
import { openCase, replaceSanctionsList } from '../db/compliance';
import { OFAC_SDN, ScreeningUnavailable, type SanctionsScreening, type SdnListClient } from '../integrations/sanctions';
import { TransferFailure } from '../platform/failures';

export interface ComplianceActivityDeps { orm: Orm; sanctions: SanctionsScreening; sdnList: SdnListClient }

/** Heartbeats when run as an activity (the list download can take minutes); nothing otherwise. */
const beat = (details: unknown) => { try { Context.current().heartbeat(details); } catch { /* not in an activity */ } };

export const createComplianceActivities = (deps: ComplianceActivityDeps) => ({
  /**
   * Reads the SDN list from SANCTIONS_LIST_URL and replaces the stored one in one transaction (addresses delisted since
   * go too). A download or parse that fails stores nothing: screening keeps the last list until it is too old.
   */
  async refreshSanctionsList(): Promise<{ listDate: string; addresses: number; added: number; removed: number; unchanged: boolean }> {
    const read = await deps.sdnList.read((bytes) => beat({ bytes }));
    const result = await replaceSanctionsList(deps.orm, OFAC_SDN.source, read, deps.sdnList.url);
    return { listDate: read.listDate, addresses: read.addresses.size, ...result };
  },

  /**
   * The last screening, just before the transfer is signed (the list may have changed since the API screened it). A
   * hit fails the transfer (RecipientSanctioned, nothing signed) and opens a case; a screening that cannot answer is
   * retried by the workflow and, past its attempts, refuses the transfer (ScreeningUnavailable): never signed unscreened.
   */
  async screenTransferRecipient(input: { transferId: string }): Promise<void> {
    const transfer = await deps.orm.em.fork().findOneOrFail(TransferEntity, { transferId: input.transferId });
    let result: Awaited<ReturnType<SanctionsScreening['screen']>>;
    try {
      result = await deps.sanctions.screen(transfer.toAddress);
    } catch (error) {
      if (error instanceof ScreeningUnavailable) throw ApplicationFailure.create({ type: TransferFailure.ScreeningUnavailable, message: error.message });
      throw error;
    }
    if (!result.listed) return;
    await openCase(deps.orm, {
      userId: transfer.userId, kind: 'sanctions_hit', transferId: transfer.transferId, networkId: transfer.networkId, address: transfer.toAddress,
      source: result.source, programme: result.programme, foundAt: 'workflow',
    });
    throw ApplicationFailure.create({
      type: TransferFailure.RecipientSanctioned, nonRetryable: true, details: [{ programme: result.programme }],
      message: `This address cannot receive transfers from this service (sanctions screening: ${result.programme}). Nothing was sent.`,
    });
  },
});

export type ComplianceActivities = ReturnType<typeof createComplianceActivities>;
