import { createHash, randomInt } from 'node:crypto';
import { BANKS, type Account } from './ledger';
import { koreanDateTime } from './korean-time';

/** An account a person registered with us through the consent screens (inquiry and transfer agreed). */
export interface Registration {
  /** 24 digits: how the institution names the account in every call instead of its number. */
  fintechUseNum: string;
  /** 계좌별명: the emulator names each account after its bank. */
  alias: string;
  account: Account;
  /** yyyyMMddHHmmss, Korean time: when inquiry and transfer were agreed (one screen here, so the same time). */
  agreedAt: string;
}

/** A person known to open banking: found again by their CI, as KFTC finds them. */
export interface Person {
  /** 10 digits (사용자일련번호). */
  userSeqNo: string;
  /** 연계정보: from the identity agency that authenticated them at the consent screens (or derivedCi). */
  ci: string;
  name: string;
  /** YYYYMMDD */
  birthDate: string;
  registrations: Registration[];
}

export interface People {
  /**
   * Registers the account for its holder (born on `birthDate`), creating the person on first sight; registering the
   * same account again changes nothing.
   */
  register(account: Account, birthDate: string, ci: string): { person: Person; registration: Registration };
  byUserSeqNo(userSeqNo: string): Person | undefined;
  /** The person holding the registered account named by a fintech_use_num, and that registration. */
  byFintechUseNum(fintechUseNum: string): { person: Person; registration: Registration } | undefined;
}

export function createPeople(now: () => Date): People {
  const byIdentity = new Map<string, Person>();
  const bySeqNo = new Map<string, Person>();
  const byFintech = new Map<string, { person: Person; registration: Registration }>();
  const digits = (length: number, taken: (candidate: string) => boolean): string => {
    for (;;) {
      const candidate = Array.from({ length }, (_, i) => randomInt(i === 0 ? 1 : 0, 10)).join('');
      if (!taken(candidate)) return candidate;
    }
  };
  return {
    register: (account, birthDate, ci) => {
      let person = byIdentity.get(ci);
      if (!person) {
        const userSeqNo = digits(10, (n) => bySeqNo.has(n));
        person = { userSeqNo, ci, name: account.holder, birthDate, registrations: [] };
        byIdentity.set(ci, person);
        bySeqNo.set(userSeqNo, person);
      }
      const known = person.registrations.find((r) => r.account === account);
      if (known) return { person, registration: known };
      const registration = {
        fintechUseNum: digits(24, (n) => byFintech.has(n)),
        alias: BANKS[account.bankCode] ?? '',
        account,
        agreedAt: koreanDateTime(now()),
      };
      person.registrations.push(registration);
      byFintech.set(registration.fintechUseNum, { person, registration });
      return { person, registration };
    },
    byUserSeqNo: (userSeqNo) => bySeqNo.get(userSeqNo),
    byFintechUseNum: (fintechUseNum) => byFintech.get(fintechUseNum),
  };
}

/**
 * The CI of a person the identity agency never verified (the sandbox used without the identity provider): derived
 * from who they say they are. Not a real CI: those come from an identity agency's secret key.
 */
export const derivedCi = (name: string, birthDate: string): string =>
  createHash('sha512').update(`ci:${name}:${birthDate}`).digest('base64');
