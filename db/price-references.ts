import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Orm } from './orm';
import { PriceReferenceEntity } from './entities';
import { HotStatement } from './sql';

/** The reference of an asset (every transfer's valuation and sponsorship read it): prepared on PostgreSQL. */
const REFERENCE = new HotStatement('price-reference', 'select * from price_references where asset = ?');

/** A price reference as integrations/prices.ts holds prices to it: won ×100, and when it was set (ms, real time). */
interface Anchor {
  centi: bigint;
  setAtMs: number;
}

/**
 * The price references every API and worker process shares (the store of integrations/prices.ts). A reference is
 * replaced only if it is still the one the caller read, so of processes renewing it at once one wins and the others
 * are held to what it set.
 */
export const storedPriceReferences = (orm: Orm) => {
  const get = async (asset: string): Promise<Anchor | undefined> => {
    const row = await REFERENCE.entity(orm.em.fork(), PriceReferenceEntity, [asset]);
    return row ? { centi: row.centi, setAtMs: row.setAt.getTime() } : undefined;
  };
  return {
    get,
    async replace(asset: string, expected: Anchor | undefined, next: Anchor): Promise<Anchor> {
      const em = orm.em.fork();
      const setAt = new Date(next.setAtMs);
      if (expected) {
        const moved = await em.nativeUpdate(
          PriceReferenceEntity,
          { asset, setAt: new Date(expected.setAtMs) },
          { centi: next.centi, setAt },
        );
        if (moved === 1) return next;
      } else {
        try {
          await em.insert(PriceReferenceEntity, { asset, centi: next.centi, setAt });
          return next;
        } catch (error) {
          if (!(error instanceof UniqueConstraintViolationException)) throw error;
        }
      }
      return (await get(asset))!;
    },
  };
};
