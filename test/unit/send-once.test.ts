import { SendOnce, type TransferKey } from '../../integrations/bank/kftc-once';
import { bankDate } from '../../integrations/bank/kftc-tran-ids';
import { memoryBook } from '../helpers/bank-tran-ids';

/**
 * SendOnce's reading of a reference sent under more than one id (a send the centre had no record of, sent again),
 * against a centre scripted per id: what transfer/result answers for each. The adapter's protocol itself is held to
 * the sandbox's emulation in test/contract/kftc-open-banking.test.ts; here, only the decision over several answers.
 */
describe('SendOnce over a reference sent under two ids', () => {
  const KEY: TransferKey = { reference: 'payout:p-1', direction: 'deposit', amount: 5000n };
  /** transfer/result's answer for one id, the way the centre words it. */
  type Answer = 'not-found' | 'processing' | 'paid' | 'refused';
  const answers = (script: Record<string, Answer>) => async (path: string, body: unknown) => {
    if (!path.endsWith('/transfer/result')) throw new Error(`unexpected call ${path}`);
    const item = (body as { req_list: Array<{ org_bank_tran_id: string }> }).req_list[0]!;
    const envelope = { api_tran_id: 'x', api_tran_dtm: '20261202000000000' };
    switch (script[item.org_bank_tran_id]) {
      case 'processing':
        return { ...envelope, rsp_code: 'A0001', rsp_message: '처리 중' };
      case 'paid':
      case 'refused':
        return {
          ...envelope,
          rsp_code: 'A0000',
          rsp_message: '',
          res_cnt: '1',
          res_list: [
            {
              tran_no: '1',
              bank_tran_id: item.org_bank_tran_id,
              bank_tran_date: bankDate(),
              bank_code_tran: '004',
              bank_rsp_code: script[item.org_bank_tran_id] === 'paid' ? '000' : '412',
              bank_rsp_message: '',
              tran_amt: '5000',
            },
          ],
        };
      default:
        return { ...envelope, rsp_code: 'A0310', rsp_message: '이체내역 없음' };
    }
  };
  /** A book holding the reference sent under `first`, then again (long ago) under `second`. */
  const sentTwice = async () => {
    const book = memoryBook();
    const ids = ['M000000001UFIRST0001', 'M000000001USECOND001'];
    let next = 0;
    const draw = () => ids[next++]!;
    const entry = await book.assign(KEY.reference, KEY, draw);
    await book.claim(KEY.reference, entry.bankTranId);
    const again = await book.reassign(KEY.reference, entry.bankTranId, draw);
    await book.claim(KEY.reference, again!.bankTranId);
    book.entries.get(KEY.reference)!.sentAt = new Date(Date.now() - 3_600_000);
    return { book, first: ids[0]!, second: ids[1]! };
  };
  const once = (book: ReturnType<typeof memoryBook>, script: Record<string, Answer>) =>
    new SendOnce({
      tranIds: book,
      call: answers(script),
      newTranId: () => 'M000000001UNEVERSENT',
      notReceivedAfterMs: 1000,
    });
  const neverSend = async () => {
    throw new Error('nothing may be sent');
  };

  it('keeps it in doubt while the first id is processing, whatever the second answers', async () => {
    const { book, first, second } = await sentTwice();
    const outcome = await once(book, { [first]: 'processing', [second]: 'refused' }).transfer(
      KEY,
      neverSend,
      undefined,
      {
        sendAgain: false,
      },
    );
    expect(outcome).toMatchObject({ status: 'in_doubt' });
  });

  it('takes the refusal when the first id was never received', async () => {
    const { book, first, second } = await sentTwice();
    const outcome = await once(book, { [first]: 'not-found', [second]: 'refused' }).transfer(
      KEY,
      neverSend,
      undefined,
      {
        sendAgain: false,
      },
    );
    expect(outcome).toMatchObject({ status: 'rejected', reason: 'no_such_account', code: '412' });
  });

  it('names both ids when both paid, and counts them', async () => {
    const { book, first, second } = await sentTwice();
    const centre = once(book, { [first]: 'paid', [second]: 'paid' });
    expect(await centre.transfer(KEY, neverSend, undefined, { sendAgain: false })).toMatchObject({
      status: 'unknown',
      movedUnder: [first, second],
    });
    expect(await centre.moved(KEY)).toEqual({ paid: 2, inDoubt: false });
    expect(await once(book, { [first]: 'processing', [second]: 'paid' }).moved(KEY)).toEqual({
      paid: 1,
      inDoubt: true,
    });
  });

  it('answers not received, sending nothing, when neither id is on record and sending again is not allowed', async () => {
    const { book, first, second } = await sentTwice();
    const outcome = await once(book, { [first]: 'not-found', [second]: 'not-found' }).transfer(
      KEY,
      neverSend,
      undefined,
      { sendAgain: false },
    );
    expect(outcome).toMatchObject({ status: 'in_doubt', notReceived: true });
    expect(book.entries.get(KEY.reference)!.bankTranId).toBe(second);
  });
});
