import type { IdCardKind, IdCardReading } from './reader';

/**
 * The ID-card authenticity port: asks the issuing authority's records (행정안전부 for resident cards, 도로교통공단 for
 * driver's licences) whether a card of these details was issued to this person and is current. The reader says what a
 * card reads; this says it is real. One adapter per real provider (integrations/id-card/useb.ts: useB's status API),
 * chosen by ID_CARD_CHECK_PROVIDER.
 */

/**
 * `valid`: issued as read and current. `mismatch`: the details do not match a card issued to this person (a made-up
 * or altered card, a wrong issue date or licence serial). `reported_lost` / `reported_stolen`: reported. `expired`: a
 * card replaced by a newer one. `not_issued`: no such card. `locked`: the authority stopped answering for this person
 * after repeated wrong details (they unlock it themselves, at gov.kr). `unsupported`: the provider cannot check this
 * kind of card.
 */
export const ID_CARD_CHECK_RESULTS = [
  'valid',
  'mismatch',
  'reported_lost',
  'reported_stolen',
  'expired',
  'not_issued',
  'locked',
  'unsupported',
] as const;
export type IdCardCheckResult = (typeof ID_CARD_CHECK_RESULTS)[number];

/**
 * The details a check needs, as the reader read them (a card of a known kind): a resident card's number and issue
 * date; a driver's licence's number and the serial under its photo (without it the authority confirms the licence,
 * not this card), with the birth date.
 */
export type IdCardToCheck = Omit<IdCardReading, 'kind' | 'confident'> & { kind: IdCardKind };

export interface IdCardAuthenticity {
  /**
   * The authority's answer. A provider outage or a refusal of us (a wrong key, no credit) is thrown
   * (ProviderUnavailable: retried), never answered as a result.
   */
  check(card: IdCardToCheck, requestId: string): Promise<IdCardCheckResult>;
}
