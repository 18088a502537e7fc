import type { Transfer } from '../../db/entities';
import { parseAmount } from '../../platform/money';
import { problems } from '../http/problems';

/** A validated transfer request; `record` stores it (after the PIN check) with its funds reserved. */
export interface TransferIntent { record(transferId: string): Promise<Transfer> }

export const amountOf = parseAmount;

export const unknownToken = (symbol: string, networkId: string, known: string[]) =>
  problems.unprocessable('unknown-token', `${symbol} is not transferable on ${networkId}; tokens: ${known.join(', ')}`);
