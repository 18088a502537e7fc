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
