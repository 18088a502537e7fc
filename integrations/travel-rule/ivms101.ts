import { Type, type Static, type TSchema } from '@sinclair/typebox';
import Ajv from 'ajv';

/**
 * IVMS101, the identity payload of Travel Rule messages, in the two forms counterparts send (the standard's texts,
 * IVMS101 Issue 1 of 2020 and IVMS101.2023, compared element by element):
 *
 * - **2020** (what TRISA's `pkg/ivms101` reads and writes): `originator.originatorPersons[]` with
 *   `originator.accountNumber[]` beside them, the same for the beneficiary (`beneficiaryPersons`,
 *   `beneficiary.accountNumber`), name identifiers typed by `nameIdentifierType`, a legal person's `customerNumber`;
 * - **2023** (`payloadMetadata.payloadVersion: "101.2023"`): `originatorPerson[]` / `beneficiaryPerson[]`, each
 *   person with its own `accountNumber`, a natural person's legal-name identifiers typed by
 *   `naturalPersonNameIdentifierType` (local and phonetic ones keep `nameIdentifierType`), a legal person's
 *   `customerIdentification`.
 *
 * Each VASP is wrapped in both (`originatingVASP.originatingVASP`). We write either (per counterpart, 2020 unless it
 * asks for 2023: TRISA drops 2023 keys without a word) and read both: what we read of a message is its parties' names
 * and accounts, after a check of the parts we rely on (persons, legal names, accounts), Ivms101Invalid otherwise.
 */
export type Ivms101Form = '2020' | '2023';

export class Ivms101Invalid extends Error {}

/** A natural person's name as we hold it: the legal name in its own script, and its romanization when known. */
export interface PersonName {
  local: string;
  latin?: { surname: string; given: string };
}

export interface Ivms101Parties {
  originator: { name: PersonName; customerId: string; account: string };
  beneficiary: { name: string; account: string };
  originatingVasp: { name: string; id: string };
  beneficiaryVasp: { name: string; id: string };
}

const legalPerson = (vasp: { name: string; id: string }, form: Ivms101Form) => ({
  legalPerson: {
    name: { nameIdentifier: [{ legalPersonName: vasp.name, legalPersonNameIdentifierType: 'LEGL' }] },
    [form === '2020' ? 'customerNumber' : 'customerIdentification']: vasp.id,
    countryOfRegistration: 'KR',
  },
});

/** A natural person's name: Latin-script identifiers (the romanized name when known) and the local script's. */
function naturalName(name: PersonName, form: Ivms101Form) {
  const legal = { [form === '2020' ? 'nameIdentifierType' : 'naturalPersonNameIdentifierType']: 'LEGL' };
  const latin = name.latin
    ? { primaryIdentifier: name.latin.surname, secondaryIdentifier: name.latin.given, ...legal }
    : { primaryIdentifier: name.local, ...legal };
  return {
    nameIdentifier: [latin],
    ...(name.latin ? { localNameIdentifier: [{ primaryIdentifier: name.local, nameIdentifierType: 'LEGL' }] } : {}),
  };
}

/** The IVMS101 message of an outbound transfer, in the form the counterpart reads. */
export function ivms101Message(parties: Ivms101Parties, form: Ivms101Form): Record<string, unknown> {
  const originator = {
    naturalPerson: {
      name: naturalName(parties.originator.name, form),
      customerIdentification: parties.originator.customerId,
      countryOfResidence: 'KR',
    },
  };
  const beneficiary = { naturalPerson: { name: naturalName({ local: parties.beneficiary.name }, form) } };
  const vasps = {
    originatingVASP: { originatingVASP: legalPerson(parties.originatingVasp, form) },
    beneficiaryVASP: { beneficiaryVASP: legalPerson(parties.beneficiaryVasp, form) },
  };
  const message =
    form === '2020'
      ? {
          originator: { originatorPersons: [originator], accountNumber: [parties.originator.account] },
          beneficiary: { beneficiaryPersons: [beneficiary], accountNumber: [parties.beneficiary.account] },
          ...vasps,
        }
      : {
          originator: { originatorPerson: [{ ...originator, accountNumber: [parties.originator.account] }] },
          beneficiary: { beneficiaryPerson: [{ ...beneficiary, accountNumber: [parties.beneficiary.account] }] },
          ...vasps,
          payloadMetadata: { payloadVersion: '101.2023' },
        };
  readIvms101(message); // what we send passes what we accept
  return message;
}

const Text = (max: number) => Type.String({ minLength: 1, maxLength: max });
const NAME_TYPES = ['LEGL', 'ALIA', 'BIRT', 'MAID', 'MISC'];
const NameIdentifier = Type.Object({
  primaryIdentifier: Text(100),
  secondaryIdentifier: Type.Optional(Type.String({ maxLength: 100 })),
  nameIdentifierType: Type.Optional(Type.String({ enum: NAME_TYPES })),
  naturalPersonNameIdentifierType: Type.Optional(Type.String({ enum: NAME_TYPES })),
});
const Names = Type.Array(NameIdentifier, { maxItems: 10 });
const NaturalPerson = Type.Object({
  name: Type.Object({
    nameIdentifier: Type.Array(NameIdentifier, { minItems: 1, maxItems: 10 }),
    localNameIdentifier: Type.Optional(Names),
    phoneticNameIdentifier: Type.Optional(Names),
  }),
});
const LegalPerson = Type.Object({
  name: Type.Object({
    nameIdentifier: Type.Array(
      Type.Object({ legalPersonName: Text(100), legalPersonNameIdentifierType: Type.Optional(Type.String()) }),
      { minItems: 1, maxItems: 10 },
    ),
  }),
});
const Accounts = Type.Array(Text(512), { maxItems: 20 });
const Person = Type.Object({
  naturalPerson: Type.Optional(NaturalPerson),
  legalPerson: Type.Optional(LegalPerson),
  accountNumber: Type.Optional(Accounts),
});
const Persons = Type.Array(Person, { minItems: 1, maxItems: 10 });
const Message = Type.Object({
  originator: Type.Object({
    originatorPersons: Type.Optional(Persons),
    originatorPerson: Type.Optional(Persons),
    accountNumber: Type.Optional(Accounts),
  }),
  beneficiary: Type.Object({
    beneficiaryPersons: Type.Optional(Persons),
    beneficiaryPerson: Type.Optional(Persons),
    accountNumber: Type.Optional(Accounts),
  }),
  payloadMetadata: Type.Optional(Type.Object({ payloadVersion: Type.Optional(Type.String({ maxLength: 16 })) })),
});
type Message = Static<typeof Message>;
type PersonT = Static<typeof Person>;

const ajv = new Ajv({ allErrors: false, strict: false });
const check = <S extends TSchema>(schema: S) => {
  const validate = ajv.compile(schema);
  return (value: unknown): value is Static<S> => validate(value) as boolean;
};
const isMessage = check(Message);
const validateMessage = ajv.compile(Message);

/**
 * What we read of a received message: the parties' names (legal ones first, local script first) and accounts; for
 * the beneficiary, how many distinct names the message tries (`nameTries`: its identifiers, one written twice counted
 * once), each of which the address's daily budget pays for.
 */
export interface Ivms101Reading {
  form: Ivms101Form;
  originator: { names: string[]; accounts: string[] };
  beneficiary: { names: string[]; accounts: string[]; nameTries: number };
}

/**
 * A beneficiary is named at most this many times in each kind of identifier (a natural person's `nameIdentifier` and
 * `localNameIdentifier`, a legal person's `nameIdentifier`): a name in Latin script and one in its own, with room for
 * a second spelling. More is refused, so that a message cannot carry a list of names to try against an address.
 */
export const MAX_BENEFICIARY_IDENTIFIERS_PER_KIND = 2;

/** One beneficiary person, named at most twice in each kind of identifier; Ivms101Invalid otherwise. */
function checkBeneficiaryNaming(persons: PersonT[]): void {
  if (persons.length > 1) throw new Ivms101Invalid('the beneficiary is one person, not several');
  const person = persons[0]!;
  const kinds: Array<[string, unknown[] | undefined]> = [
    ['naturalPerson.name.nameIdentifier', person.naturalPerson?.name.nameIdentifier],
    ['naturalPerson.name.localNameIdentifier', person.naturalPerson?.name.localNameIdentifier],
    ['legalPerson.name.nameIdentifier', person.legalPerson?.name.nameIdentifier],
  ];
  for (const [kind, identifiers] of kinds)
    if ((identifiers?.length ?? 0) > MAX_BENEFICIARY_IDENTIFIERS_PER_KIND)
      throw new Ivms101Invalid(
        `the beneficiary is named at most ${MAX_BENEFICIARY_IDENTIFIERS_PER_KIND} times in each kind of identifier (${kind} has ${identifiers!.length})`,
      );
}

/** Names as sameName compares them (platform/names.ts): NFC, no spaces; distinct ones are distinct tries. */
const nameTriesOf = (names: string[]): number =>
  new Set(names.map((name) => name.normalize('NFC').replace(/\s+/g, '')).filter(Boolean)).size;

const typeOf = (n: Static<typeof NameIdentifier>) => n.naturalPersonNameIdentifierType ?? n.nameIdentifierType;

function namesOf(persons: PersonT[], role: string): string[] {
  const names: string[] = [];
  for (const person of persons) {
    if (person.naturalPerson && person.legalPerson)
      throw new Ivms101Invalid(`an ${role} person is either a natural or a legal person, not both`);
    if (person.naturalPerson) {
      const { name } = person.naturalPerson;
      const all = [...(name.localNameIdentifier ?? []), ...name.nameIdentifier];
      if (!all.some((n) => typeOf(n) === 'LEGL'))
        throw new Ivms101Invalid(`the ${role}'s name has no legal name (nameIdentifierType LEGL)`);
      names.push(...all.map((n) => [n.primaryIdentifier, n.secondaryIdentifier].filter(Boolean).join(' ')));
    } else if (person.legalPerson) {
      names.push(...person.legalPerson.name.nameIdentifier.map((n) => n.legalPersonName));
    } else throw new Ivms101Invalid(`an ${role} person is neither a natural nor a legal person`);
  }
  return names;
}

/** Reads a received IVMS101 message in either form; Ivms101Invalid says what is wrong with it. */
export function readIvms101(message: unknown): Ivms101Reading {
  if (!isMessage(message)) {
    validateMessage(message);
    const error = validateMessage.errors?.[0];
    throw new Ivms101Invalid(`IVMS101 ${error?.instancePath || '/'} ${error?.message ?? 'is invalid'}`);
  }
  const m: Message = message;
  const originators = m.originator.originatorPersons ?? m.originator.originatorPerson;
  const beneficiaries = m.beneficiary.beneficiaryPersons ?? m.beneficiary.beneficiaryPerson;
  if (!originators) throw new Ivms101Invalid('IVMS101 /originator names no originatorPersons');
  if (!beneficiaries) throw new Ivms101Invalid('IVMS101 /beneficiary names no beneficiaryPersons');
  checkBeneficiaryNaming(beneficiaries);
  const beneficiaryNames = namesOf(beneficiaries, 'beneficiary');
  const nameTries = nameTriesOf(beneficiaryNames);
  if (nameTries === 0) throw new Ivms101Invalid('the beneficiary has no name (spaces are not one)');
  // The accounts beside the persons (2020) and each person's own (2023).
  const accounts = (own: string[] | undefined, persons: PersonT[]) => [
    ...(own ?? []),
    ...persons.flatMap((p) => p.accountNumber ?? []),
  ];
  return {
    form: /^(IVMS)?101\.2023$/.test(m.payloadMetadata?.payloadVersion ?? '') ? '2023' : '2020',
    originator: {
      names: namesOf(originators, 'originator'),
      accounts: accounts(m.originator.accountNumber, originators),
    },
    beneficiary: {
      names: beneficiaryNames,
      accounts: accounts(m.beneficiary.accountNumber, beneficiaries),
      nameTries,
    },
  };
}
