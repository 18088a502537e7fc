import type { Orm } from '../../db/orm';
import { openCase } from '../../db/compliance';
import { ScreeningUnavailable, type SanctionsScreening } from '../../integrations/sanctions';
import { httpErrorOfFailure } from '../http/workflow-errors';
import { TransferFailure } from '../../platform/failures';
import type { HttpError } from '../http/problems';
import { declaredScreening } from '../http/request-context';

/**
 * Where the API screened an address: a transfer's prepare or execute, an address entering the address book, or a key
 * about to control an account (its first owner, a rotation's or a recovery's new owner) before the service pays gas.
 */
export type ScreeningContext = 'prepare' | 'execute' | 'address-book' | 'deploy' | 'key-rotation' | 'recovery';

/** 422 recipient-sanctioned: names the programme (OFAC SDN, or the provider's category), nothing of the list entry. */
export const sanctionedRefusal = (programme: string): HttpError =>
  httpErrorOfFailure(
    TransferFailure.RecipientSanctioned,
    `This address cannot receive transfers from this service (sanctions screening: ${programme}). Nothing was sent.`,
    { programme },
  );

/** 503 screening-unavailable with Retry-After: the address could not be screened now, so nothing is sent. */
export const screeningUnavailable = (): HttpError =>
  httpErrorOfFailure(
    TransferFailure.ScreeningUnavailable,
    'The recipient cannot be screened against sanctions lists right now, so nothing is sent; try again shortly.',
  );

/**
 * Sanctions screening as the API applies it: a listed address is refused (422 recipient-sanctioned) and opens a
 * compliance case (compliance.case_opened) for operators; a screening that cannot answer refuses too (503), never lets
 * an unscreened address through. The worker screens again just before signing.
 */
export class Screening {
  constructor(private readonly deps: { orm: Orm; screening: SanctionsScreening }) {}

  async assertNotSanctioned(
    userId: string,
    networkId: string,
    address: string,
    where: { context: ScreeningContext },
  ): Promise<void> {
    // A request screens only as its route declares (RouteSpec.screens), so the document lists the refusals below.
    const declared = declaredScreening();
    if (declared !== undefined && declared !== where.context)
      throw new Error(
        `A "${where.context}" screening in a request whose route declares ${declared === null ? 'none' : `"${declared}"`} (RouteSpec.screens)`,
      );
    let result: Awaited<ReturnType<SanctionsScreening['screen']>>;
    try {
      result = await this.deps.screening.screen(address);
    } catch (error) {
      if (error instanceof ScreeningUnavailable) throw screeningUnavailable();
      throw error;
    }
    if (!result.listed) return;
    await openCase(this.deps.orm, {
      userId,
      kind: 'sanctions_hit',
      networkId,
      address,
      source: result.source,
      programme: result.programme,
      foundAt: where.context,
    });
    throw sanctionedRefusal(result.programme);
  }
}
