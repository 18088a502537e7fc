/**
 * The status of a transfer the chain included: `confirmed`, or already `finalized` (with one confirmation, as the
 * test chains are configured, finality follows inclusion at once).
 */
export const INCLUDED = /^(confirmed|finalized)$/;
