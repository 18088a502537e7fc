import { Type } from '@sinclair/typebox';
import { validate as validateIvms101, type IVMS101 } from 'ivms101';
import {
  callProvider,
  expectAnswer,
  ProviderAnswerInvalid,
  PROVIDER_REJECTED,
  type ProviderHttpOptions,
} from './provider-http';

/** A provider that hosts an address, as the VASP directory names it. */
export interface HostingVasp {
  id: string;
  name: string;
  trpUrl: string;
}

const DirectoryAnswer = Type.Union([
  Type.Object({ hosted: Type.Literal(false) }),
  Type.Object({
    hosted: Type.Literal(true),
    vasp: Type.Object({
      id: Type.String({ minLength: 1 }),
      name: Type.String({ minLength: 1 }),
      trpUrl: Type.String({ pattern: '^https?://' }),
    }),
  }),
]);

/**
 * HTTP client of a VASP directory (the Korean Travel Rule networks keep one: which provider hosts an address, and
 * where its Travel Rule endpoint is): `GET /vasps/v1/addresses/{network}/{address}` with `X-API-Key`, answering
 * `{hosted: false}` (self-custody, as far as the directory knows) or `{hosted: true, vasp: {id, name, trpUrl}}`.
 */
export class VaspDirectoryClient {
  private readonly http: ProviderHttpOptions;

  constructor(options: { baseUrl: string; apiKey: string; timeoutMs: number }) {
    this.http = {
      baseUrl: options.baseUrl,
      timeoutMs: options.timeoutMs,
      headers: { 'x-api-key': options.apiKey },
      maxAnswerBytes: 64 * 1024,
    };
  }

  async lookup(networkId: string, address: string): Promise<{ hosted: false } | { hosted: true; vasp: HostingVasp }> {
    const { body } = await callProvider<unknown>(
      this.http,
      'GET',
      `/vasps/v1/addresses/${encodeURIComponent(networkId)}/${encodeURIComponent(address)}`,
    );
    return expectAnswer(DirectoryAnswer, body, 'a VASP directory lookup');
  }
}

/** A natural person's name as IVMS101 carries it: the legal name in its own script, and its romanization when known. */
export interface PersonName {
  local: string;
  latin?: { surname: string; given: string };
}

export interface TravelRuleParties {
  originator: { name: PersonName; customerId: string; address: string };
  beneficiary: { name: string; address: string };
  originatingVasp: { name: string; id: string };
  beneficiaryVasp: { name: string; id: string };
}

const legalName = (name: PersonName) => ({
  // nameIdentifier is in Latin script (the romanized name); localNameIdentifier in the person's own script.
  nameIdentifier: [
    name.latin
      ? {
          primaryIdentifier: name.latin.surname,
          secondaryIdentifier: name.latin.given,
          naturalPersonNameIdentifierType: 'LEGL' as const,
        }
      : { primaryIdentifier: name.local, naturalPersonNameIdentifierType: 'LEGL' as const },
  ],
  ...(name.latin
    ? { localNameIdentifier: [{ primaryIdentifier: name.local, nameIdentifierType: 'LEGL' as const }] }
    : {}),
});

/**
 * The IVMS101 (2023) message of an outbound transfer, validated with the `ivms101` package (its constraints C1-C12);
 * a message it refuses is never sent. The beneficiary is identified by the address it is paid to (the library applies
 * constraint C1, meant for the originator, to the beneficiary too; the address is what identifies it to its provider).
 */
export function travelRuleMessage(parties: TravelRuleParties): IVMS101 {
  const message = {
    originator: {
      originatorPerson: [
        {
          naturalPerson: {
            name: legalName(parties.originator.name),
            customerIdentification: parties.originator.customerId,
            countryOfResidence: 'KR',
          },
          accountNumber: [parties.originator.address],
        },
      ],
    },
    beneficiary: {
      beneficiaryPerson: [
        {
          naturalPerson: {
            name: legalName({ local: parties.beneficiary.name }),
            customerIdentification: parties.beneficiary.address,
          },
          accountNumber: [parties.beneficiary.address],
        },
      ],
    },
    originatingVASP: {
      legalPerson: {
        name: {
          nameIdentifier: [{ legalPersonName: parties.originatingVasp.name, legalPersonNameIdentifierType: 'LEGL' }],
        },
        customerIdentification: parties.originatingVasp.id,
        countryOfRegistration: 'KR',
      },
    },
    beneficiaryVASP: {
      legalPerson: {
        name: {
          nameIdentifier: [{ legalPersonName: parties.beneficiaryVasp.name, legalPersonNameIdentifierType: 'LEGL' }],
        },
        customerIdentification: parties.beneficiaryVasp.id,
        countryOfRegistration: 'KR',
      },
    },
    payloadMetadata: { payloadVersion: '101.2023' },
  };
  // Checked, not transformed: the library's parse drops fields its schema does not list (accountNumber, local names).
  validateIvms101(message);
  return message as IVMS101;
}

/** A received IVMS101 message, checked against the standard; anything else is refused (400 to the sender). */
export function readTravelRuleMessage(message: unknown): IVMS101 {
  validateIvms101(message);
  return message as IVMS101;
}

/** The beneficiary's account (the address paid) in a message. */
export const beneficiaryAccountOf = (message: IVMS101): string | undefined =>
  (message.beneficiary?.beneficiaryPerson ?? [])[0]?.accountNumber?.[0];

/** The beneficiary's names in a message (local script first), for matching against a verified name. */
export function beneficiaryNamesOf(message: IVMS101): string[] {
  const person = (message.beneficiary?.beneficiaryPerson ?? [])[0]?.naturalPerson as
    | {
        name?: {
          nameIdentifier?: Array<{ primaryIdentifier: string; secondaryIdentifier?: string }>;
          localNameIdentifier?: Array<{ primaryIdentifier: string; secondaryIdentifier?: string }>;
        };
      }
    | undefined;
  const names = [...(person?.name?.localNameIdentifier ?? []), ...(person?.name?.nameIdentifier ?? [])];
  return names.map((n) => [n.primaryIdentifier, n.secondaryIdentifier].filter(Boolean).join(' '));
}

/** TRP v3 (OpenVASP Travel Rule Protocol): the version header every message carries. */
export const TRP_API_VERSION = '3.1.0';

/**
 * The originator side of TRP: the transfer inquiry (`POST` to the beneficiary provider's TRP endpoint with
 * `api-version` and `request-identifier`, the asset, amount, our callback and the IVMS101 message). Its answer only says
 * the inquiry was received; the decision comes later to the callback (`{"approved": {...}}` or `{"rejected": "..."}`).
 * A provider that refuses the inquiry outright (4xx) is a rejection; one that cannot be reached is retried.
 */
export class TravelRuleClient {
  constructor(private readonly options: { timeoutMs: number }) {}

  /** TRP inquiry resolution: our answer to another provider's inquiry, `{approved: {address, callback}}` or `{rejected}`. */
  async sendResolution(
    callback: string,
    resolution: { requestIdentifier: string; approved: { address: string } | null; rejected: string | null },
  ): Promise<void> {
    const body = resolution.approved
      ? { approved: { address: resolution.approved.address } }
      : { rejected: resolution.rejected ?? 'rejected' };
    await callProvider(
      { baseUrl: callback, timeoutMs: this.options.timeoutMs, maxAnswerBytes: 64 * 1024 },
      'POST',
      callback,
      body,
      {
        'api-version': TRP_API_VERSION,
        'request-identifier': resolution.requestIdentifier,
      },
    );
  }

  /** TRP transfer confirmation: `{"txid"}` to the URL the beneficiary provider named in its approval. */
  async sendConfirmation(callback: string, confirmation: { requestIdentifier: string; txid: string }): Promise<void> {
    await callProvider(
      { baseUrl: callback, timeoutMs: this.options.timeoutMs, maxAnswerBytes: 64 * 1024 },
      'POST',
      callback,
      { txid: confirmation.txid },
      {
        'api-version': TRP_API_VERSION,
        'request-identifier': confirmation.requestIdentifier,
      },
    );
  }

  async sendInquiry(
    trpUrl: string,
    inquiry: {
      requestIdentifier: string;
      asset: { network: string; symbol: string };
      amount: string;
      callback: string;
      ivms101: IVMS101;
    },
  ): Promise<{ accepted: true } | { accepted: false; reason: string }> {
    try {
      await callProvider(
        { baseUrl: trpUrl, timeoutMs: this.options.timeoutMs, maxAnswerBytes: 64 * 1024 },
        'POST',
        trpUrl,
        { asset: inquiry.asset, amount: inquiry.amount, callback: inquiry.callback, IVMS101: inquiry.ivms101 },
        { 'api-version': TRP_API_VERSION, 'request-identifier': inquiry.requestIdentifier },
      );
      return { accepted: true };
    } catch (error) {
      if (error instanceof ProviderAnswerInvalid) throw error;
      const rejected = error as { type?: string; details?: unknown[] };
      if (rejected.type === PROVIDER_REJECTED)
        return {
          accepted: false,
          reason: `the receiving provider refused the inquiry: ${JSON.stringify(rejected.details?.[0] ?? null)}`,
        };
      throw error;
    }
  }
}
