import { maskedMatches, pairListed } from '../../api/bank/masked-account';

/** Which connected account a bank's listing (account number part hidden) is: the link a withdrawal follows. */
describe('an account number as a bank lists it', () => {
  it.each([
    ['0001230000***', '0001230000123', true],
    ['000-1230000-***', '0001230000456', true],
    ['20230821***', '20230821123', true],
    ['20230821***', '2023082112345', false], // shorter: it could be another number starting alike
    ['0001230000***', '0001230001123', false], // a digit shown differs
    ['***0001230000', '0001230000123', false], // the shown digits at other places
    ['1234567890', '12345678901', false], // shorter and not ending hidden
    ['00012300001234', '0001230000123', false], // longer than the number
    ['12345*******', '123456789012', false], // too few digits shown to tell accounts apart
    ['***', '123', false],
    ['', '0001230000123', false],
  ])('%s can be %s: %s', (masked, accountNo, expected) => {
    expect(maskedMatches(masked, accountNo)).toBe(expected);
  });

  const match = (c: string, l: string) => maskedMatches(l, c);

  it('pairs each connected account with the one listing it can be', () => {
    const pairs = pairListed(['0001230000123', '5556667778889'], ['5556667778***', '0001230000***'], match);
    expect([...pairs]).toEqual([
      ['0001230000123', '0001230000***'],
      ['5556667778889', '5556667778***'],
    ]);
  });

  it('links nothing where a listing could be two connected accounts, or a connected account two listings', () => {
    // Two of the person's accounts differ only in the hidden digits: which one the bank consented to is unknown.
    expect(pairListed(['0001230000123', '0001230000456'], ['0001230000***'], match).size).toBe(0);
    // Two listings could both be this account.
    expect(pairListed(['0001230000123'], ['0001230000***', '000123000****'], match).size).toBe(0);
    // A listing of another account of the person's that shows the same digits (one they did not connect with us).
    expect(pairListed(['0001230000123'], ['0001230000***', '0001230000***'], match).size).toBe(0);
    // The unambiguous one still pairs.
    const pairs = pairListed(
      ['0001230000123', '0001230000456', '9998887776665'],
      ['0001230000***', '999888777****'],
      match,
    );
    expect([...pairs]).toEqual([['9998887776665', '999888777****']]);
  });
});
