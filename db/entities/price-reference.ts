import { defineEntity, type InferEntity } from '@mikro-orm/core';

/**
 * The reference a fresh price of an asset is held to before it values anything (integrations/prices.ts): one row per
 * asset, shared by every API and worker process, moved only once a window has passed since `setAt`.
 */
export const PriceReferenceEntity = defineEntity({
  name: 'PriceReference',
  tableName: 'price_references',
  properties: (p) => ({
    asset: p.string().primary().length(16),
    /** The won price ×100. */
    centi: p.bigint('bigint'),
    /** When it became the reference, in real time (as the feed's own times are). */
    setAt: p.datetime(),
  }),
});
export type PriceReference = InferEntity<typeof PriceReferenceEntity>;
