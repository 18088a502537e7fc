import { ProviderAnswerInvalid, ProviderUnavailable, expectAnswer } from '../provider-http';
import * as A from './kftc-answers';
import type { TransferOutcome } from './rail';
import { bankDateTime, nextBankDate, type BankTranIdBook, type BankTranIdEntry, type SentId } from './kftc-tran-ids';

/** What a transfer is, for asking about it: its reference, direction and amount. */
export interface TransferKey {
  reference: string;
  direction: 'deposit' | 'withdrawal';
  amount: bigint;
}

/** The gateway refused the call itself, before any processing (a refused token, a documented refusal in a 4xx). */
export class GatewayRefusal extends Error {
  constructor(
    readonly reason: string,
    readonly code: string,
  ) {
    super(`the open banking gateway refused the call (${code})`);
  }
}

export interface SendOnceDeps {
  tranIds: BankTranIdBook;
  /** A JSON call to the centre with the institution's token (transfer/result). */
  call: (path: string, body: unknown) => Promise<unknown>;
  newTranId: () => string;
  /**
   * How long a transfer the centre has no record of is waited for before it is taken as never received and sent again
   * under a new id: well past the longest a request may take to arrive (a send that timed out, or got an error answer
   * from a gateway, may still be on its way).
   */
  notReceivedAfterMs: number;
}

/**
 * A transfer sent at most once per id, and asked about otherwise. The first call claims the reference's id (one
 * attempt only, however many run at once) and sends; every later call asks transfer/result about every id the
 * reference was sent under, never guessing: two ids that both moved money are an operator's (unknown), one that did
 * is the outcome, none on record long enough means the centre never received it, and only then is it sent again
 * under a new id (the old one is kept and asked about).
 */
export class SendOnce {
  constructor(private readonly deps: SendOnceDeps) {}

  async transfer(
    key: TransferKey,
    send: (entry: BankTranIdEntry, token: string | undefined) => Promise<TransferOutcome>,
    credential?: () => Promise<string | undefined>,
    options: { sendAgain?: boolean } = {},
  ): Promise<TransferOutcome> {
    const { tranIds } = this.deps;
    let entry = await tranIds.assign(key.reference, key, () => this.deps.newTranId());
    if (entry.sentAt) {
      const asked = await this.outcomeOf(entry, key);
      if (!asked.neverArrived) return asked.outcome;
      if (options.sendAgain === false)
        return {
          status: 'in_doubt',
          reason: `the centre has no record of ${[...entry.earlier.map((e) => e.bankTranId), entry.bankTranId].join(', ')} since it was sent: not sent again`,
          notReceived: true,
        };
      const next = await tranIds.reassign(entry.reference, entry.bankTranId, () => this.deps.newTranId());
      if (!next) return { status: 'in_doubt', reason: 'another attempt is sending it again' };
      entry = next;
    }
    // What only a send needs (a withdrawal, the person's token): without it, nothing is sent.
    const token = credential ? await credential() : undefined;
    if (credential && !token) return { status: 'rejected', reason: 'consent_required', code: 'no-token' };
    if (!(await tranIds.claim(entry.reference, entry.bankTranId)))
      return { status: 'in_doubt', reason: 'another attempt is sending it' };
    try {
      return await send(entry, token);
    } catch (error) {
      if (error instanceof GatewayRefusal) return { status: 'rejected', reason: error.reason, code: error.code };
      if (error instanceof ProviderAnswerInvalid) return { status: 'unknown', reason: error.message.slice(0, 200) };
      if (error instanceof ProviderUnavailable) return { status: 'in_doubt', reason: error.message.slice(0, 200) };
      throw error;
    }
  }

  /**
   * How many of the ids a reference was sent under moved money, as transfer/result says now, and whether any is still
   * in doubt (processing, or an answer that says nothing): for watching a transfer after its workflow is done (a send
   * that lands late). Nothing is sent.
   */
  async moved(key: TransferKey): Promise<{ paid: number; inDoubt: boolean }> {
    const entry = await this.deps.tranIds.find(key.reference);
    if (!entry?.sentAt) return { paid: 0, inDoubt: false };
    const answers = await Promise.all([...entry.earlier, entry].map((id) => this.inquire(id, key)));
    return {
      paid: answers.filter((a) => a.outcome.status === 'completed').length,
      inDoubt: answers.some((a) => !a.notFound && a.outcome.status !== 'completed' && a.outcome.status !== 'rejected'),
    };
  }

  /** The bank's answer about a transfer of ours, once its booking day is known: kept for the result inquiry. */
  async dated(entry: BankTranIdEntry, item: { bank_tran_date?: string } | undefined): Promise<void> {
    if (item?.bank_tran_date && /^\d{8}$/.test(item.bank_tran_date) && item.bank_tran_date !== entry.tranDate)
      await this.deps.tranIds.dated(entry.reference, entry.bankTranId, item.bank_tran_date);
  }

  /** What became of a reference, by every id it was sent under. */
  private async outcomeOf(
    entry: BankTranIdEntry,
    key: TransferKey,
  ): Promise<{ outcome: TransferOutcome; neverArrived: boolean }> {
    const ids: SentId[] = [...entry.earlier, entry];
    const answers = await Promise.all(ids.map((id) => this.inquire(id, key)));
    const moved = ids.filter((_, i) => answers[i]!.outcome.status === 'completed');
    if (moved.length > 1)
      return {
        outcome: {
          status: 'unknown',
          reason: `the bank moved the money under ${moved.map((m) => m.bankTranId).join(' and ')}: for an operator`,
          movedUnder: moved.map((m) => m.bankTranId),
        },
        neverArrived: false,
      };
    if (moved.length === 1) return { outcome: answers[ids.indexOf(moved[0]!)]!.outcome, neverArrived: false };
    // An earlier id the centre has on record and has not settled (processing, or an answer that says nothing) may
    // still move the money: the newest id's refusal does not stand for it.
    const open = answers
      .slice(0, -1)
      .find((a) => !a.notFound && (a.outcome.status === 'in_doubt' || a.outcome.status === 'unknown'));
    if (open) return { outcome: open.outcome, neverArrived: false };
    const current = answers.at(-1)!;
    const waited = Date.now() - entry.sentAt!.getTime() >= this.deps.notReceivedAfterMs;
    return {
      outcome: current.outcome,
      neverArrived: answers.every((a) => a.notFound) && waited,
    };
  }

  /** transfer/result for one id of ours, on its day and, when not found there, the next (a send across midnight). */
  private async inquire(id: SentId, key: TransferKey): Promise<{ outcome: TransferOutcome; notFound: boolean }> {
    const first = await this.inquireOn(id, key, id.tranDate);
    if (!first.notFound) return first;
    return this.inquireOn(id, key, nextBankDate(id.tranDate));
  }

  private async inquireOn(
    id: SentId,
    key: TransferKey,
    date: string,
  ): Promise<{ outcome: TransferOutcome; notFound: boolean }> {
    let answer: A.TransferResultAnswer;
    try {
      answer = expectAnswer(
        A.TransferResult,
        await this.deps.call('/v2.0/transfer/result', {
          check_type: key.direction === 'withdrawal' ? '1' : '2',
          tran_dtime: bankDateTime(),
          req_cnt: '1',
          req_list: [
            {
              tran_no: '1',
              org_bank_tran_id: id.bankTranId,
              org_bank_tran_date: date,
              org_tran_amt: A.wonOnTheWire(key.amount),
            },
          ],
        }),
        'transfer/result',
      );
    } catch (error) {
      if (error instanceof ProviderAnswerInvalid)
        return { outcome: { status: 'unknown', reason: error.message.slice(0, 200) }, notFound: false };
      if (error instanceof ProviderUnavailable || error instanceof GatewayRefusal)
        return { outcome: { status: 'in_doubt', reason: error.message.slice(0, 200) }, notFound: false };
      throw error;
    }
    if (A.NOT_FOUND.has(answer.rsp_code))
      return { outcome: { status: 'in_doubt', reason: `no record of ${id.bankTranId} yet` }, notFound: true };
    const early = A.centreOutcome(answer.rsp_code, answer.rsp_message);
    // A refusal of the inquiry itself says nothing of the transfer: an operator looks.
    if (early)
      return {
        outcome:
          early.status === 'rejected'
            ? { status: 'unknown', reason: `transfer/result answered ${answer.rsp_code}` }
            : early,
        notFound: false,
      };
    return { outcome: A.itemOutcome(answer.res_list?.[0], id.bankTranId, key.amount), notFound: false };
  }
}
