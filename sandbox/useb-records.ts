/**
 * What the sandbox's issuing authorities (행정안전부, 도로교통공단) know, for the useB stand-in (useb.ts). They hold no
 * register of every card, so a card checks out when it is consistent: a resident number whose first six digits (and
 * century digit) are a birth date, an issue date between birth and today, a licence number whose year block is not
 * before the birth year. Beyond that they know what tests tell them: cards reported lost, licence numbers superseded
 * by a new licence, the serial each licence's card carries. Each check answers useB's code, or nothing when valid.
 */
export type AuthorityCode = 'A001' | 'A002' | 'A003' | 'A004' | 'A005' | 'A006' | 'A011' | 'A013' | 'A014' | 'A016';

/** Wrong issue dates that lock a resident number (useB's A005: unlocked by the person at gov.kr). */
const LOCK_AFTER_WRONG_ISSUE_DATES = 5;

export class AuthorityRecords {
  private readonly reports = new Map<string, 'lost' | 'superseded'>();
  private readonly serials = new Map<string, string>();
  private readonly wrongIssueDates = new Map<string, number>();

  constructor(private readonly today: () => Date) {}

  /** A resident card (by its number) or a licence (by its number) reported lost; a licence replaced by a newer one. */
  report(card: { idNumber?: string; licenseNumber?: string }, status: 'lost' | 'superseded'): void {
    if (card.idNumber) this.reports.set(`id:${card.idNumber}`, status);
    if (card.licenseNumber) this.reports.set(`licence:${card.licenseNumber}`, status);
  }

  /** The serial (암호일련번호) printed on the licence's current card. */
  registerSerial(licenseNumber: string, serial: string): void {
    this.serials.set(licenseNumber, serial);
  }

  /** `/status/idcard`: {identity, issueDate, userName}. */
  residentCard(body: Record<string, unknown>): AuthorityCode | undefined {
    const [identity, issueDate, userName] = [text(body.identity), text(body.issueDate), text(body.userName)];
    if (!identity || !issueDate || !userName) return 'A003';
    if (!/^\d{13}$/.test(identity)) return 'A001';
    if (!/^\d{8}$/.test(issueDate)) return 'A002';
    if ((this.wrongIssueDates.get(identity) ?? 0) >= LOCK_AFTER_WRONG_ISSUE_DATES) return 'A005';
    const born = birthDateOf(identity);
    if (!born) return 'A001';
    const issued = dateOf(issueDate);
    if (!issued || issued < born || issued > this.today()) {
      const wrong = (this.wrongIssueDates.get(identity) ?? 0) + 1;
      this.wrongIssueDates.set(identity, wrong);
      return wrong >= LOCK_AFTER_WRONG_ISSUE_DATES ? 'A005' : 'A004';
    }
    return this.reports.get(`id:${identity}`) === 'lost' ? 'A006' : undefined;
  }

  /** `/status/driver`: {userName, birthDate, licenseNo ('NN-NN-NNNNNN-NN'), juminNo?, serialNo?}. */
  driverLicence(body: Record<string, unknown>): AuthorityCode | undefined {
    const [userName, birthDate, licenseNo] = [text(body.userName), text(body.birthDate), text(body.licenseNo)];
    const [juminNo, serialNo] = [text(body.juminNo), text(body.serialNo)];
    const born = /^\d{8}$/.test(birthDate ?? '') ? dateOf(birthDate!) : undefined;
    const blocks = /^(\d{2})-(\d{2})-(\d{6})-(\d{2})$/.exec(licenseNo ?? '');
    if (!userName || !born || born > this.today() || !blocks) return 'A013';
    if (juminNo !== undefined && birthDateOf(juminNo)?.getTime() !== born.getTime()) return 'A011';
    if (this.licenceYear(blocks[2]!) < born.getUTCFullYear()) return 'A013';
    const number = blocks.slice(1).join('');
    if (this.reports.get(`licence:${number}`) === 'superseded') return 'A016';
    const serial = this.serials.get(number);
    if (serialNo !== undefined && (!/^[0-9A-Z]{5,6}$/.test(serialNo) || (serial !== undefined && serial !== serialNo)))
      return 'A014';
    return this.reports.get(`licence:${number}`) === 'lost' ? 'A006' : undefined;
  }

  /** The year of a licence number's two-digit year block: the latest such year not after this one. */
  private licenceYear(block: string): number {
    const thisYear = this.today().getUTCFullYear();
    return thisYear - ((((thisYear - Number(block)) % 100) + 100) % 100);
  }
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value ? value : undefined);

/** The century of a resident number's 7th digit (1-2, 5-6: 1900s; 3-4, 7-8: 2000s; 9, 0: 1800s). */
const CENTURY: Record<string, string> = {
  1: '19',
  2: '19',
  5: '19',
  6: '19',
  3: '20',
  4: '20',
  7: '20',
  8: '20',
  9: '18',
  0: '18',
};

function birthDateOf(number: string): Date | undefined {
  const century = CENTURY[number[6] ?? ''];
  return /^\d{13}$/.test(number) && century ? dateOf(`${century}${number.slice(0, 6)}`) : undefined;
}

/** YYYYMMDD as a date of the calendar (midnight UTC), or undefined. */
function dateOf(compact: string): Date | undefined {
  const iso = `${compact.slice(0, 4)}-${compact.slice(4, 6)}-${compact.slice(6, 8)}`;
  const date = new Date(`${iso}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(iso) ? date : undefined;
}
