import { randomInt } from 'node:crypto';
import { ProviderAnswerInvalid, ProviderUnavailable, expectAnswer, requestProvider } from '../provider-http';
import type { ProviderHttpOptions } from '../provider-http';
import * as A from './kftc-answers';
import type {
  AccountHolderAnswer,
  BankConsentGrant,
  BankConsentTokens,
  BankRail,
  DepositOrder,
  TransferOutcome,
  WithdrawalOrder,
} from './rail';
import { KftcTokens } from './kftc-tokens';
import { bankDate, bankDateTime, type BankTranIdBook, type BankTranIdEntry } from './kftc-tran-ids';

export interface KftcSettings {
  /** https://openapi.openbanking.or.kr (a path of its own allowed: the sandbox serves it under /kftc). */
  apiUrl: string;
  clientId: string;
  clientSecret: string;
  /** 이용기관코드: the first ten characters of every bank_tran_id. */
  institutionCode: string;
  /** Our contracted account: withdrawals credit it, deposits debit it (the worker's; the API moves no money). */
  contract?: { accountNum: string; accountType: 'N' | 'C'; depositPassPhrase: string };
  transport: Pick<ProviderHttpOptions, 'timeoutMs' | 'tls'>;
  tranIds: BankTranIdBook;
}

/** A transfer whose send timed out, not found by transfer/result this long after: it never reached the centre. */
const NOT_RECEIVED_AFTER_MS = 2 * 60_000;
const SCOPE = 'login inquiry transfer';

/**
 * The bank rail over the KFTC open banking API v2.0 (금융결제원 오픈뱅킹): consent by the centre's OAuth authorization (the
 * person's token and a fintech_use_num per consented account), real-name inquiry with the holder's birth date,
 * deposits from our contracted account (deposit/acnt_num), withdrawals from a consented account (withdraw/fin_num)
 * and the result inquiry (transfer/result). Every call carries a bank_tran_id of ours (BankTranIdBook): a reference is
 * sent once; asked again, the adapter asks transfer/result what became of it. An answer in doubt (A0001, a timeout,
 * no answer) is never guessed: it stays in doubt until transfer/result says.
 */
export class KftcOpenBanking implements BankRail {
  private readonly http: ProviderHttpOptions;
  private readonly tokens: KftcTokens;

  constructor(private readonly settings: KftcSettings) {
    this.http = { baseUrl: settings.apiUrl, ...settings.transport };
    this.tokens = new KftcTokens(this.http, settings);
  }

  consentUrl({ state, redirectUri }: { state: string; redirectUri: string }): string {
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: this.settings.clientId,
      redirect_uri: redirectUri,
      scope: SCOPE,
      state,
      auth_type: '0',
    });
    return `${this.settings.apiUrl.replace(/\/+$/, '')}/oauth/2.0/authorize?${query.toString()}`;
  }

  async completeConsent({ code, redirectUri }: { code: string; redirectUri: string }): Promise<BankConsentGrant> {
    const token = await this.tokens.userToken({ grant_type: 'authorization_code', code, redirect_uri: redirectUri });
    const { body } = await requestProvider<unknown>(
      this.http,
      'GET',
      `/v2.0/user/me?user_seq_no=${encodeURIComponent(token.userSeqNo)}`,
      undefined,
      {
        authorization: `Bearer ${token.tokens.accessToken}`,
      },
    );
    const me = expectAnswer(A.UserMe, body, 'user/me');
    if (me.rsp_code !== 'A0000') throw new ProviderUnavailable(`user/me answered ${me.rsp_code}: ${me.rsp_message}`);
    return {
      userRef: token.userSeqNo,
      personName: me.user_name ?? '',
      tokens: token.tokens,
      accounts: (me.res_list ?? []).map((a) => ({
        accountRef: a.fintech_use_num,
        bankCode: a.bank_code_std,
        bankName: a.bank_name,
        accountNoMasked: a.account_num_masked,
        holderName: a.account_holder_name,
        withdrawalsAgreed: a.transfer_agree_yn === 'Y',
      })),
    };
  }

  async refreshConsent(refreshToken: string): Promise<BankConsentTokens> {
    return (await this.tokens.userToken({ grant_type: 'refresh_token', refresh_token: refreshToken, scope: SCOPE }))
      .tokens;
  }

  async accountHolder(input: {
    reference: string;
    bankCode: string;
    accountNo: string;
    birthDate: string;
  }): Promise<AccountHolderAnswer> {
    const entry = await this.settings.tranIds.assign(input.reference, { direction: 'inquiry', amount: 0n }, () =>
      this.newTranId(),
    );
    const answer = expectAnswer(
      A.RealName,
      await this.call('/v2.0/inquiry/real_name', {
        bank_tran_id: entry.bankTranId,
        bank_code_std: input.bankCode,
        account_num: input.accountNo,
        // ' ': the holder's real-name number given as the birth date (YYMMDD).
        account_holder_info_type: ' ',
        account_holder_info: input.birthDate.replace(/-/g, '').slice(2),
        tran_dtime: bankDateTime(),
      }),
      'inquiry/real_name',
    );
    if (answer.rsp_code === 'A0000' && answer.bank_rsp_code === '000')
      return { found: true, bankName: answer.bank_name ?? '', holderName: answer.account_holder_name ?? '' };
    const code = answer.bank_rsp_code || answer.rsp_code;
    const outcome =
      A.centreOutcome(answer.rsp_code, answer.rsp_message) ?? A.bankOutcome(code, 0n, answer.bank_rsp_message ?? '');
    if (outcome.status === 'rejected') {
      if (outcome.reason === 'no_such_account' || outcome.reason === 'account_closed')
        return { found: false, reason: 'no_such_account', code };
      if (outcome.reason === 'holder_mismatch') return { found: false, reason: 'holder_mismatch', code };
      return { found: false, reason: 'refused', code };
    }
    throw new ProviderUnavailable(`inquiry/real_name answered ${code}: ${answer.rsp_message.slice(0, 100)}`);
  }

  async deposit(order: DepositOrder): Promise<TransferOutcome> {
    const contract = this.contract();
    return this.transferOnce({ reference: order.reference, direction: 'deposit', amount: order.amount }, async (id) => {
      const answer = expectAnswer(
        A.Deposit,
        await this.call('/v2.0/transfer/deposit/acnt_num', {
          cntr_account_type: contract.accountType,
          cntr_account_num: contract.accountNum,
          wd_pass_phrase: contract.depositPassPhrase,
          wd_print_content: order.purpose === 'verification' ? '계좌인증' : '충전환불',
          name_check_option: 'on',
          tran_dtime: bankDateTime(),
          req_cnt: '1',
          req_list: [
            {
              tran_no: '1',
              bank_tran_id: id.bankTranId,
              bank_code_std: order.bankCode,
              account_num: order.accountNo,
              account_holder_name: order.holderName,
              print_content: order.memo,
              tran_amt: wonOnTheWire(order.amount),
              req_client_name: order.requester.name,
              req_client_bank_code: order.bankCode,
              req_client_account_num: order.accountNo,
              req_client_num: order.requester.memberId,
              // AU: an authentication (the 1 KRW verification); TR: a remittance (a refund).
              transfer_purpose: order.purpose === 'verification' ? 'AU' : 'TR',
            },
          ],
        }),
        'transfer/deposit/acnt_num',
      );
      const early = A.centreOutcome(answer.rsp_code, answer.rsp_message);
      if (early) return early;
      return this.itemOutcome(answer.res_list?.[0], id, order.amount);
    });
  }

  async withdraw(order: WithdrawalOrder): Promise<TransferOutcome> {
    const contract = this.contract();
    const token = order.accessToken;
    const send = async (id: BankTranIdEntry): Promise<TransferOutcome> => {
      const answer = expectAnswer(
        A.Withdrawal,
        await this.call(
          '/v2.0/transfer/withdraw/fin_num',
          {
            bank_tran_id: id.bankTranId,
            cntr_account_type: contract.accountType,
            cntr_account_num: contract.accountNum,
            dps_print_content: order.memo,
            fintech_use_num: order.accountRef,
            wd_print_content: order.memo,
            tran_amt: wonOnTheWire(order.amount),
            tran_dtime: bankDateTime(),
            req_client_name: order.requester.name,
            req_client_fintech_use_num: order.accountRef,
            req_client_num: order.requester.memberId,
            // RC: 충전 (charging a balance).
            transfer_purpose: 'RC',
          },
          token,
        ),
        'transfer/withdraw/fin_num',
      );
      const early = A.centreOutcome(answer.rsp_code, answer.rsp_message);
      if (early) return early;
      return this.itemOutcome(answer, id, order.amount);
    };
    return this.transferOnce(
      { reference: order.reference, direction: 'withdrawal', amount: order.amount },
      token ? send : undefined,
    );
  }

  /**
   * Sends `reference` once: the first call sends it (with a bank_tran_id noted before the request leaves); a later
   * call, for a reference that may have been sent, asks transfer/result instead. A transfer the centre has no record
   * of never reached it, and is sent again under a new id: at once when the first send ended in an error answer
   * (nothing of it is under way anywhere), else only once NOT_RECEIVED_AFTER_MS passed (a request that timed out may
   * still be on its way).
   */
  private async transferOnce(
    query: { reference: string; direction: 'deposit' | 'withdrawal'; amount: bigint },
    send: ((entry: BankTranIdEntry) => Promise<TransferOutcome>) | undefined,
  ): Promise<TransferOutcome> {
    const { tranIds } = this.settings;
    let entry = await tranIds.assign(query.reference, query, () => this.newTranId());
    if (entry.sentAt) {
      const asked = await this.inquire(entry);
      const neverArrived =
        asked.notFound && (!!entry.erroredAt || Date.now() - entry.sentAt.getTime() >= NOT_RECEIVED_AFTER_MS);
      if (!neverArrived) return asked.outcome;
      entry = await tranIds.reassign(entry.reference, () => this.newTranId());
    } else if (entry.tranDate !== bankDate()) {
      entry = await tranIds.reassign(entry.reference, () => this.newTranId());
    }
    // Sending needs what only the first send has (a withdrawal, the person's token): without it, nothing is sent.
    if (!send) return { status: 'rejected', reason: 'consent_required', code: 'no-token' };
    await tranIds.markSent(entry.reference);
    try {
      return await send(entry);
    } catch (error) {
      if (error instanceof GatewayRefusal) {
        // Refused at the gateway (a token refused): nothing was processed, so nothing stands in the way of a new send.
        await tranIds.unmarkSent(entry.reference);
        return { status: 'rejected', reason: error.reason, code: error.code };
      }
      if (error instanceof ProviderAnswerInvalid) return { status: 'unknown', reason: error.message.slice(0, 200) };
      if (error instanceof ProviderUnavailable) {
        // An error answer ends the exchange: if the centre has no record of it later, it never will.
        if (error.status) await tranIds.markErrored(entry.reference);
        return { status: 'in_doubt', reason: error.message.slice(0, 200) };
      }
      throw error;
    }
  }

  /** transfer/result for one transfer of ours. */
  private async inquire(entry: BankTranIdEntry): Promise<{ outcome: TransferOutcome; notFound: boolean }> {
    let answer: A.TransferResultAnswer;
    try {
      answer = expectAnswer(
        A.TransferResult,
        await this.call('/v2.0/transfer/result', {
          check_type: entry.direction === 'withdrawal' ? '1' : '2',
          tran_dtime: bankDateTime(),
          req_cnt: '1',
          req_list: [
            {
              tran_no: '1',
              org_bank_tran_id: entry.bankTranId,
              org_bank_tran_date: entry.tranDate,
              org_tran_amt: wonOnTheWire(entry.amount),
            },
          ],
        }),
        'transfer/result',
      );
    } catch (error) {
      if (error instanceof ProviderAnswerInvalid)
        return { outcome: { status: 'unknown', reason: error.message.slice(0, 200) }, notFound: false };
      if (error instanceof ProviderUnavailable)
        return { outcome: { status: 'in_doubt', reason: error.message.slice(0, 200) }, notFound: false };
      throw error;
    }
    if (A.NOT_FOUND.has(answer.rsp_code))
      return {
        outcome: { status: 'in_doubt', reason: `transfer/result has no record of ${entry.bankTranId} yet` },
        notFound: true,
      };
    const early = A.centreOutcome(answer.rsp_code, answer.rsp_message);
    if (early)
      return {
        outcome:
          early.status === 'rejected'
            ? { status: 'unknown', reason: `transfer/result answered ${answer.rsp_code}` }
            : early,
        notFound: false,
      };
    return { outcome: this.itemOutcome(answer.res_list?.[0], entry, entry.amount), notFound: false };
  }

  /** The bank's part of an answer about our transfer; one about another transfer or amount is not ours: unknown. */
  private itemOutcome(
    item: { bank_tran_id?: string; bank_rsp_code?: string; bank_rsp_message?: string; tran_amt?: string } | undefined,
    entry: BankTranIdEntry,
    amount: bigint,
  ): TransferOutcome {
    if (!item?.bank_rsp_code) return { status: 'unknown', reason: 'the answer carries no bank_rsp_code' };
    if (item.bank_tran_id !== undefined && item.bank_tran_id !== entry.bankTranId)
      return {
        status: 'unknown',
        reason: `the answer is for ${item.bank_tran_id.slice(0, 20)}, not ${entry.bankTranId}`,
      };
    const outcome = A.bankOutcome(item.bank_rsp_code, amount, item.bank_rsp_message ?? '');
    if (outcome.status === 'completed' && item.tran_amt !== undefined && item.tran_amt !== wonOnTheWire(amount))
      return { status: 'unknown', reason: `the bank moved ${item.tran_amt.slice(0, 20)} won, not ${amount}` };
    return outcome;
  }

  /** A JSON call with the institution's token (or the person's, for a withdrawal). */
  private async call(path: string, body: unknown, userToken?: string): Promise<unknown> {
    const token = userToken ?? (await this.tokens.institutionToken());
    const answer = await requestProvider<unknown>(this.http, 'POST', path, body, {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json; charset=UTF-8',
    });
    if (answer.status === 401 || answer.status === 403) {
      if (userToken) throw new GatewayRefusal('consent_required', codeOf(answer.body));
      this.tokens.forgetInstitutionToken();
      throw new ProviderUnavailable(`the open banking centre refused our token on ${path} (${codeOf(answer.body)})`);
    }
    if (answer.status >= 400)
      throw new ProviderUnavailable(
        `the open banking centre answered ${answer.status} on ${path} (${codeOf(answer.body)})`,
      );
    return answer.body;
  }

  private contract(): NonNullable<KftcSettings['contract']> {
    if (!this.settings.contract)
      throw new Error('moving money needs the contracted account (BANK_CONTRACT_ACCOUNT_NUM)');
    return this.settings.contract;
  }

  /** 이용기관코드 + U (made by the institution) + nine upper-case letters or digits, unique per day (the book checks). */
  private newTranId(): string {
    const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
    let tail = '';
    for (let i = 0; i < 9; i += 1) tail += alphabet[randomInt(alphabet.length)];
    return `${this.settings.institutionCode}U${tail}`;
  }
}

/** The gateway refused the call itself (before any processing): a refused token, say. */
class GatewayRefusal extends Error {
  constructor(
    readonly reason: string,
    readonly code: string,
  ) {
    super(`the open banking gateway refused the call (${code})`);
  }
}

const codeOf = (body: unknown): string =>
  typeof body === 'object' && body !== null && 'rsp_code' in body
    ? String((body as { rsp_code: unknown }).rsp_code).slice(0, 16)
    : 'no code';

/** Won as the API types amounts: a string of digits (N(12)). */
export function wonOnTheWire(amount: bigint): string {
  if (amount <= 0n || amount >= 10n ** 12n)
    throw new Error(`a bank amount must be 1 to 999,999,999,999 won: ${amount}`);
  return amount.toString();
}
