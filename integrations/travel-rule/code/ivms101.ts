import type { PersonName } from '../ivms101';

/**
 * IVMS101 as CODE exchanges it (GitHub codevasp-lab/IVMS101, README and examples): the entity objects in PascalCase
 * (`Originator`, `Beneficiary`, `OriginatingVASP`, `BeneficiaryVASP`), everything inside in camelCase, every value a
 * string; a natural person's name with `nameIdentifier` (Latin script) and `localNameIdentifier` (the name in Hangul),
 * and, since 2024-08-07, the originator's date of birth; accounts at `accountNumber` (`address:tag` for a tagged
 * chain). The originator sends Originator, Beneficiary and OriginatingVASP; the beneficiary VASP answers with
 * BeneficiaryVASP added.
 */
export interface CodeIvms101Parties {
  originator: { name: PersonName; birthDate: string; customerId: string; account: string };
  beneficiary: { name: string; account: string };
  originatingVasp: { name: string; id: string };
}

const naturalName = (name: PersonName) => ({
  nameIdentifier: [
    name.latin
      ? { primaryIdentifier: name.latin.surname, secondaryIdentifier: name.latin.given, nameIdentifierType: 'LEGL' }
      : { primaryIdentifier: name.local, secondaryIdentifier: '', nameIdentifierType: 'LEGL' },
  ],
  localNameIdentifier: [{ primaryIdentifier: name.local, secondaryIdentifier: '', nameIdentifierType: 'LEGL' }],
});

export function codeIvms101Message(parties: CodeIvms101Parties): Record<string, unknown> {
  return {
    Originator: {
      originatorPersons: [
        {
          naturalPerson: {
            name: naturalName(parties.originator.name),
            dateAndPlaceOfBirth: { dateOfBirth: parties.originator.birthDate },
            customerIdentification: parties.originator.customerId.slice(0, 50),
            countryOfResidence: 'KR',
          },
        },
      ],
      accountNumber: [parties.originator.account],
    },
    Beneficiary: {
      beneficiaryPersons: [{ naturalPerson: { name: naturalName({ local: parties.beneficiary.name }) } }],
      accountNumber: [parties.beneficiary.account],
    },
    OriginatingVASP: {
      originatingVASP: {
        legalPerson: {
          name: {
            nameIdentifier: [{ legalPersonName: parties.originatingVasp.name, legalPersonNameIdentifierType: 'LEGL' }],
          },
          countryOfRegistration: 'KR',
        },
      },
    },
  };
}

/** A CODE IVMS101 message that cannot be read: what is missing (`missing`) or malformed. */
export class CodeIvms101Invalid extends Error {
  constructor(
    message: string,
    readonly missing = true,
  ) {
    super(message);
  }
}

/** The parties of a CODE IVMS101 message as the beneficiary side reads them. */
export interface CodeIvms101Reading {
  /** Every way the beneficiary's name may be written (CODE's "Dev 06 - Verify Names"): see codeNameCandidates. */
  beneficiaryNames: string[];
  /**
   * How many distinct names the message tries for its beneficiary: its identifiers, each counted once whichever of its
   * two orderings matches, and one identifier written twice (in any case or spacing) counted once. A counterpart
   * learns whether any of them is the name at the address, so each one is a guess the address's budget pays for.
   */
  beneficiaryNameTries: number;
  beneficiaryAccounts: string[];
  originatorNames: string[];
  originatorAccounts: string[];
}

type Json = Record<string, unknown>;
const asObject = (value: unknown): Json | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
const objectAt = (value: unknown, key: string): Json | undefined => asObject(asObject(value)?.[key]);
const listAt = (value: unknown, key: string): unknown[] => {
  const found = value !== null && typeof value === 'object' ? (value as Json)[key] : undefined;
  return Array.isArray(found) ? found : [];
};
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * A person is named at most this many times in each kind of identifier (a natural person's `nameIdentifier` and
 * `localNameIdentifier`, a legal person's `nameIdentifier`): CODE writes a name once in Latin script and once in
 * Hangul, and two of a kind leave room for a former or alternative spelling. More is refused, so that a message cannot
 * carry a list of names to try against an address.
 */
export const MAX_CODE_IDENTIFIERS_PER_KIND = 2;

/** Each name identifier of a person, as the ways it may be written: a natural person's two orderings, a legal name. */
function identifiersOf(person: unknown): string[][] {
  const natural = objectAt(objectAt(person, 'naturalPerson'), 'name');
  const legal = objectAt(objectAt(person, 'legalPerson'), 'name');
  const identifiers: string[][] = [];
  for (const identifier of [...listAt(natural, 'nameIdentifier'), ...listAt(natural, 'localNameIdentifier')]) {
    const primary = text(asObject(identifier)?.primaryIdentifier);
    const secondary = text(asObject(identifier)?.secondaryIdentifier);
    if (primary || secondary) identifiers.push([`${primary}${secondary}`, `${secondary}${primary}`]);
  }
  for (const identifier of listAt(legal, 'nameIdentifier')) {
    const name = text(asObject(identifier)?.legalPersonName);
    if (name) identifiers.push([name]);
  }
  return identifiers;
}

/**
 * The names a person of CODE's IVMS101 goes by, as CODE's "Dev 06 - Verify Names" compares them: for each of
 * `nameIdentifier` and `localNameIdentifier`, primary then secondary and secondary then primary (a surname and a
 * given name in either order); a legal person by its legal name.
 */
export function codeNameCandidates(persons: unknown[]): string[] {
  return [...new Set(persons.flatMap((person) => identifiersOf(person).flat()))];
}

/** How many distinct names a person's identifiers try: one per identifier, however many orderings or copies. */
export function codeNameTries(person: unknown): number {
  const keys = identifiersOf(person).map((orderings) =>
    [...new Set(orderings.map(codeNameKey))]
      .filter((key) => key.length > 0)
      .sort()
      .join('\u0000'),
  );
  return new Set(keys.filter((key) => key.length > 0)).size;
}

/**
 * Names compare as CODE's "Dev 06" normalises them: in lower case, without special characters, digits or spaces
 * (Unicode letters of any script kept, so a Hangul name compares as written). Nothing matches an empty name.
 */
export const codeNameKey = (name: string): string =>
  name
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^\p{L}]/gu, '');

export const sameCodeName = (candidate: string, verified: string): boolean => {
  const key = codeNameKey(verified);
  return key.length > 0 && codeNameKey(candidate) === key;
};

/**
 * A beneficiary named by more than one person, as both a natural and a legal person, or more than twice in one kind
 * of identifier: refused (`missing` false), so that no message tries more than a few names at an address.
 */
function checkBeneficiaryNaming(persons: unknown[]): void {
  if (persons.length > 1)
    throw new CodeIvms101Invalid('Beneficiary.beneficiaryPersons names one person, not several', false);
  const person = persons[0];
  const natural = objectAt(person, 'naturalPerson');
  const legal = objectAt(person, 'legalPerson');
  if (natural && legal)
    throw new CodeIvms101Invalid('the beneficiary is either a natural or a legal person, not both', false);
  const kinds: Array<[string, unknown[]]> = [
    ['naturalPerson.name.nameIdentifier', listAt(objectAt(natural, 'name'), 'nameIdentifier')],
    ['naturalPerson.name.localNameIdentifier', listAt(objectAt(natural, 'name'), 'localNameIdentifier')],
    ['legalPerson.name.nameIdentifier', listAt(objectAt(legal, 'name'), 'nameIdentifier')],
  ];
  for (const [kind, identifiers] of kinds)
    if (identifiers.length > MAX_CODE_IDENTIFIERS_PER_KIND)
      throw new CodeIvms101Invalid(
        `a beneficiary is named at most twice in each kind of identifier (${kind} has ${identifiers.length})`,
        false,
      );
}

/** Reads the parties of a CODE IVMS101 message (`{Originator, Beneficiary, ...}`, PascalCase entities). */
export function readCodeIvms101(message: unknown): CodeIvms101Reading {
  const beneficiary = objectAt(message, 'Beneficiary');
  if (!beneficiary) throw new CodeIvms101Invalid('Beneficiary is required');
  const accounts = (entity: Json | undefined) =>
    listAt(entity, 'accountNumber').filter(
      (a): a is string => typeof a === 'string' && a.length > 0 && a.length <= 200,
    );
  const originator = objectAt(message, 'Originator');
  // One beneficiary, named at most twice in each kind of identifier: see checkBeneficiaryNaming.
  const persons = listAt(beneficiary, 'beneficiaryPersons');
  checkBeneficiaryNaming(persons);
  const reading = {
    beneficiaryNames: codeNameCandidates(persons),
    beneficiaryNameTries: persons.length ? codeNameTries(persons[0]) : 0,
    beneficiaryAccounts: accounts(beneficiary),
    originatorNames: codeNameCandidates(listAt(originator, 'originatorPersons').slice(0, 1)),
    originatorAccounts: accounts(originator),
  };
  if (reading.beneficiaryAccounts.length === 0) throw new CodeIvms101Invalid('Beneficiary.accountNumber is required');
  return reading;
}

/** Our BeneficiaryVASP entity, added to the message a verified authorization answers with. */
export const codeBeneficiaryVasp = (vasp: { name: string }) => ({
  beneficiaryVASP: {
    legalPerson: {
      name: { nameIdentifier: [{ legalPersonName: vasp.name, legalPersonNameIdentifierType: 'LEGL' }] },
      countryOfRegistration: 'KR',
    },
  },
});
