import { randomInt } from 'node:crypto';
import { ProviderUnavailable, expectAnswer, requestProvider } from '../provider-http';
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
import { bankDateTime, type BankTranIdBook, type BankTranIdEntry } from './kftc-tran-ids';
import { GatewayRefusal, SendOnce } from './kftc-once';

export interface KftcSettings {
  /** https://openapi.openbanking.or.kr (a path of its own allowed: the sandbox serves it under /kftc). */
  apiUrl: string;
  clientId: string;
  clientSecret: string;
  /** 이용기관코드: the first ten characters of every bank_tran_id. */
  institutionCode: string;
  /**
   * Our contracted account: withdrawals credit it, deposits debit it (the worker's; the API moves no money). Its holder
   * and bank name it as a withdrawal's final recipient.
   */
  contract?: {
    accountNum: string;
    accountType: 'N' | 'C';
    holderName: string;
    bankCode: string;
    depositPassPhrase: string;
  };
  transport: Pick<ProviderHttpOptions, 'timeoutMs' | 'tls'>;
  tranIds: BankTranIdBook;
  /** How long a transfer the centre has no record of is waited for before it is sent again (kftc-once.ts). */
  notReceivedAfterMs: number;
}

const SCOPE = 'login inquiry transfer';

/** What our contracted account's statement shows for a deposit, by its purpose (wd_print_content, AH(20)). */
const OUR_STATEMENT: Record<DepositOrder['purpose'], string> = {
  verification: '계좌인증',
  refund: '충전환불',
  payout: '월렛 출금',
};

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
  private readonly once: SendOnce;

  constructor(private readonly settings: KftcSettings) {
    // A transfer may still arrive as long as a request can take: it is sent again only well after that.
    if (settings.notReceivedAfterMs < 3 * settings.transport.timeoutMs)
      throw new Error(
        'BANK_NOT_RECEIVED_AFTER_SECONDS must be at least three times the bank deadline (BANK_TIMEOUT_MS)',
      );
    this.http = { baseUrl: settings.apiUrl, ...settings.transport };
    this.tokens = new KftcTokens(this.http, settings);
    this.once = new SendOnce({
      tranIds: settings.tranIds,
      call: (path, body) => this.call(path, body),
      newTranId: () => this.newTranId(),
      notReceivedAfterMs: settings.notReceivedAfterMs,
    });
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
      personCi: me.user_ci || undefined,
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
    const key = { reference: order.reference, direction: 'deposit' as const, amount: order.amount };
    return this.once.transfer(
      key,
      async (id) => {
        const answer = expectAnswer(
          A.Deposit,
          await this.call('/v2.0/transfer/deposit/acnt_num', {
            cntr_account_type: contract.accountType,
            cntr_account_num: contract.accountNum,
            wd_pass_phrase: contract.depositPassPhrase,
            // What our own statement shows for it (AH(20)).
            wd_print_content: OUR_STATEMENT[order.purpose],
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
                tran_amt: A.wonOnTheWire(order.amount),
                req_client_name: order.requester.name,
                req_client_bank_code: order.bankCode,
                req_client_account_num: order.accountNo,
                req_client_num: order.requester.memberId,
                // AU: an authentication (the 1 KRW verification); TR: a remittance (a refund, a payout), as KFTC's own
                // published deposit example sends for a refund (developers.kftc.or.kr, 입금이체 API; docs/providers.md).
                transfer_purpose: order.purpose === 'verification' ? 'AU' : 'TR',
              },
            ],
          }),
          'transfer/deposit/acnt_num',
        );
        return this.outcomeOf(answer, answer.res_list?.[0], id, order.amount);
      },
      undefined,
      { sendAgain: order.sendAgain },
    );
  }

  async depositsMade(input: { reference: string; amount: bigint }): Promise<{ paid: number; inDoubt: boolean }> {
    return this.once.moved({ reference: input.reference, direction: 'deposit', amount: input.amount });
  }

  async withdraw(order: WithdrawalOrder): Promise<TransferOutcome> {
    const contract = this.contract();
    const key = { reference: order.reference, direction: 'withdrawal' as const, amount: order.amount };
    const send = async (id: BankTranIdEntry, token: string | undefined): Promise<TransferOutcome> => {
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
            tran_amt: A.wonOnTheWire(order.amount),
            tran_dtime: bankDateTime(),
            req_client_name: order.requester.name,
            req_client_fintech_use_num: order.accountRef,
            req_client_num: order.requester.memberId,
            // RC: 충전 (charging a balance).
            transfer_purpose: 'RC',
            // 최종수취고객: who finally receives the money, as the specification's example names one. A charge's
            // money stays with us: our contracted account's holder, bank and number (docs/providers.md).
            recv_client_name: contract.holderName,
            recv_client_bank_code: contract.bankCode,
            recv_client_account_num: contract.accountNum,
          },
          token,
        ),
        'transfer/withdraw/fin_num',
      );
      return this.outcomeOf(answer, answer, id, order.amount);
    };
    // The person's token is asked for only when a send is needed (a transfer sent before is asked about without it).
    return this.once.transfer(key, send, order.accessToken);
  }

  /** A transfer's answer: the centre's code first, then the bank's part about our id (its booking day is kept). */
  private async outcomeOf(
    answer: { rsp_code: string; rsp_message: string },
    item: (NonNullable<Parameters<typeof A.itemOutcome>[0]> & { bank_tran_date?: string }) | undefined,
    id: BankTranIdEntry,
    amount: bigint,
  ): Promise<TransferOutcome> {
    const early = A.centreOutcome(answer.rsp_code, answer.rsp_message);
    if (early) return early;
    await this.once.dated(id, item);
    return A.itemOutcome(item, id.bankTranId, amount);
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
    // A refusal the centre documents, answered with an error status: nothing was processed.
    const refusal = A.refusalOf(codeOf(answer.body));
    if (answer.status >= 400 && refusal) throw new GatewayRefusal(refusal, codeOf(answer.body));
    if (answer.status >= 400)
      throw new ProviderUnavailable(
        `the open banking centre answered ${answer.status} on ${path} (${codeOf(answer.body)})`,
      );
    return answer.body;
  }

  private contract(): NonNullable<KftcSettings['contract']> {
    if (!this.settings.contract)
      throw new Error(
        'moving money needs the contracted account (BANK_CONTRACT_ACCOUNT_NUM, BANK_CONTRACT_ACCOUNT_HOLDER, BANK_CONTRACT_BANK_CODE)',
      );
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

const codeOf = (body: unknown): string =>
  typeof body === 'object' && body !== null && 'rsp_code' in body
    ? String((body as { rsp_code: unknown }).rsp_code).slice(0, 16)
    : 'no code';

export { wonOnTheWire } from './kftc-answers';
