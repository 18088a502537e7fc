import { HttpError } from '../http/problems';
import { formatMoney } from '../../platform/money';
import type { VaspDirectoryClient } from '../../integrations/travel-rule';
import type { AddressBook } from '../transfer/address-book';
import type { CheckFindings, TransferCheck, TransferIntent } from '../transfer/intent';

const won = (amount: bigint) => formatMoney(amount, 0, 'KRW');

/**
 * The Travel Rule as a transfer check: a transfer valued at TRAVEL_RULE_THRESHOLD_KRW or more (at the request's price)
 * goes either to an address another provider hosts (the VASP directory says which): then the beneficiary's name is
 * required, and the workflow exchanges originator and beneficiary with that provider before signing; or to a
 * self-custody address: then the user must have proved control of it (an address-book entry with an ownership proof).
 * The directory not answering refuses the transfer (503): hosted or not cannot be guessed.
 */
export class TravelRule {
  constructor(
    private readonly deps: {
      directory?: Pick<VaspDirectoryClient, 'lookup'>;
      thresholdKrw: bigint;
      addressBook: Pick<AddressBook, 'entry'>;
    },
  ) {}

  get thresholdKrw(): bigint {
    return this.deps.thresholdKrw;
  }

  check(): TransferCheck {
    return { name: 'travel-rule', stages: ['prepare', 'execute'], run: (intent) => this.findings(intent) };
  }

  async findings(intent: TransferIntent): Promise<CheckFindings> {
    if (intent.valueKrw < this.deps.thresholdKrw) return {};
    const networkId = intent.network.networkId;
    const where = await this.lookup(networkId, intent.recipient);
    const worth = `This transfer is worth ${won(intent.valueKrw)}: from ${won(this.deps.thresholdKrw)} the Travel Rule applies`;
    if (where.hosted) {
      if (!intent.beneficiaryName) {
        throw new HttpError(
          422,
          'beneficiary-name-required',
          'Beneficiary name required',
          `${worth}, and ${intent.recipient} is an account at ${where.vasp.name}, which must be told who receives it: send beneficiary_name (the recipient's name as ${where.vasp.name} knows it) with the transfer and in its PIN approval.`,
          undefined,
          {},
          false,
          {
            vasp: { id: where.vasp.id, name: where.vasp.name },
            thresholdKrw: this.deps.thresholdKrw.toString(),
            valueKrw: intent.valueKrw.toString(),
          },
        );
      }
      return { travelRule: { vaspId: where.vasp.id, vaspName: where.vasp.name, trpUrl: where.vasp.trpUrl } };
    }
    const entry = await this.deps.addressBook.entry(intent.userId, networkId, intent.recipient);
    if (!entry?.ownershipProvedAt) {
      const base = `/api/v1/transfer/address-book/${networkId}/${intent.recipient}/ownership`;
      throw new HttpError(
        422,
        'address-ownership-required',
        'Prove you control this address',
        `${worth}, and ${intent.recipient} is not an account at a provider we know (self-custody): prove once that it is yours. ${entry ? '' : 'Add it to your address book (POST /api/v1/transfer/address-book), then '}POST ${base}/challenge, sign its message with that address's key (EVM: EIP-191 personal_sign; SOLANA: ed25519), and POST ${base} {"signature"}.`,
        undefined,
        {},
        false,
        {
          challenge: `${base}/challenge`,
          inAddressBook: Boolean(entry),
          thresholdKrw: this.deps.thresholdKrw.toString(),
          valueKrw: intent.valueKrw.toString(),
        },
      );
    }
    return {};
  }

  private async lookup(networkId: string, address: string) {
    if (!this.deps.directory)
      throw new HttpError(
        503,
        'vasp-directory-unavailable',
        'VASP directory unavailable',
        'No VASP directory is configured (VASP_DIRECTORY_URL), so transfers under the Travel Rule cannot be sent',
        undefined,
        { 'retry-after': '300' },
      );
    try {
      return await this.deps.directory.lookup(networkId, address);
    } catch {
      throw new HttpError(
        503,
        'vasp-directory-unavailable',
        'VASP directory unavailable',
        'Whether another provider hosts the recipient cannot be learnt right now, and the Travel Rule depends on it: nothing is sent; try again shortly',
        undefined,
        { 'retry-after': '30' },
      );
    }
  }
}
