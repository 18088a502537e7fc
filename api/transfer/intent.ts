import type { EntityManager } from '@mikro-orm/core';
import type { Transfer } from '../../db/entities';
import { parseAmount } from '../../platform/money';
import { problems } from '../http/problems';

/** What the spending policy adds to recording a transfer: its value, and its check inside the same transaction. */
export interface PolicyCheck { valueKrw: bigint; guard(tx: EntityManager): Promise<void> }

/** A validated transfer request; `record` stores it (after the PIN check) with its funds reserved. */
export interface TransferIntent { amount: bigint; decimals: number; record(transferId: string, policy: PolicyCheck): Promise<Transfer> }

export const amountOf = parseAmount;

export const unknownToken = (symbol: string, networkId: string, known: string[]) =>
  problems.unprocessable('unknown-token', `${symbol} is not transferable on ${networkId}; tokens: ${known.join(', ')}`);

/** Transfers whose amount the chain balance may not show yet: recorded, or sent and not yet included (again, after a reorg). */
export const IN_FLIGHT: Array<'processing' | 'submitted'> = ['processing', 'submitted'];
