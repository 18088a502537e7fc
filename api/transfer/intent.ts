import type { Transfer } from '../../db/entities';
import { AmountError, parseAmount } from '../../platform/money';
import { problems } from '../http/problems';

/** A validated transfer request; `record` stores it (after the PIN check) with its funds reserved. */
export interface TransferIntent { record(transferId: string): Promise<Transfer> }

export const amountOf = (text: string, decimals: number, symbol: string): bigint => {
  try { return parseAmount(text, decimals, symbol); } catch (error) {
    if (error instanceof AmountError) throw problems.unprocessable('invalid-amount', error.message);
    throw error;
  }
};

export const unknownToken = (symbol: string, networkId: string, known: string[]) =>
  problems.unprocessable('unknown-token', `${symbol} is not transferable on ${networkId}; tokens: ${known.join(', ')}`);
