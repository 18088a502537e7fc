import { HttpError, problems } from '../http/problems';
import { formatMoney } from '../../platform/money';
import { decodeTravelAddress } from '../../integrations/travel-rule/travel-address';
import { counterpartAt } from '../../integrations/travel-rule/counterparts';
import { trpAssetOf } from '../../integrations/travel-rule/assets';
import type { TravelRuleCounterpart } from '../../integrations/travel-rule/trp';
import type { CodeVasp } from '../../integrations/travel-rule/counterparts';
import type { AddressBook } from '../transfer/address-book';
import type { CheckFindings, TransferCheck, TransferIntent } from '../transfer/intent';

const won = (amount: bigint) => formatMoney(amount, 0, 'KRW');

/**
 * The Travel Rule as a transfer check: a transfer valued at TRAVEL_RULE_THRESHOLD_KRW or more (at the request's price)
 * goes either to an account at another VASP, which the user names by the recipient's Travel Address (TRP: the
 * beneficiary's VASP gives it with the deposit address) or by its entity id on CODE's network (`beneficiary_vasp`,
 * the Korean exchanges' network): then that VASP must be one we exchange with
 * (TRAVEL_RULE_COUNTERPARTS), the beneficiary's name is required and the asset must have a TRP identifier, and the
 * workflow exchanges originator and beneficiary with that VASP before signing; or, without a Travel Address, to a
 * wallet of the user's own (self-custody): then the user must have proved control of it (an address-book entry with
 * an ownership proof), which no one can for an exchange's deposit address.
 */
export class TravelRule {
  constructor(
    private readonly deps: {
      counterparts: TravelRuleCounterpart[];
      /** The exchanges on CODE's network we exchange with (a transfer names one as beneficiary_vasp). */
      codeVasps: CodeVasp[];
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
    const worth = `This transfer is worth ${won(intent.valueKrw)}: from ${won(this.deps.thresholdKrw)} the Travel Rule applies`;
    const limits = { thresholdKrw: this.deps.thresholdKrw.toString(), valueKrw: intent.valueKrw.toString() };
    if (intent.travelAddress && intent.beneficiaryVasp)
      throw problems.unprocessable(
        'travel-rule-counterpart-ambiguous',
        'Send travel_address (a VASP on TRP) or beneficiary_vasp (an exchange on CODE), not both: one VASP receives the Travel Rule data',
      );
    if (intent.beneficiaryVasp) {
      const vasp = this.deps.codeVasps.find((v) => v.entityId === intent.beneficiaryVasp);
      if (!vasp)
        throw problems.unprocessable(
          'beneficiary-vasp-unknown',
          `${worth}, and ${intent.beneficiaryVasp} is not an exchange we exchange Travel Rule data with on CODE's network (GET /api/v1/transfer/vasps lists them): nothing can be sent there from this service`,
          { beneficiaryVasp: intent.beneficiaryVasp },
        );
      if (!intent.beneficiaryName) throw nameRequired(worth, { id: vasp.entityId, name: vasp.name }, limits);
      return { travelRule: { vaspId: vasp.entityId, vaspName: vasp.name, trpUrl: '', network: 'code' } };
    }
    if (intent.travelAddress) {
      const { counterpart, url } = this.counterpartOf(intent.travelAddress, worth);
      if (!intent.beneficiaryName) throw nameRequired(worth, counterpart, limits);
      if (!trpAssetOf(intent.network, intent.token))
        throw problems.unprocessable(
          'travel-rule-asset-unidentified',
          `${worth}, and ${intent.token} on ${intent.network.networkId} has no Travel Rule identifier (a SLIP-0044 coin, or a DTI in the network's settings), so it cannot be announced to ${counterpart.name}: nothing is sent`,
          { vasp: { id: counterpart.id, name: counterpart.name }, ...limits },
        );
      return { travelRule: { vaspId: counterpart.id, vaspName: counterpart.name, trpUrl: url } };
    }
    const networkId = intent.network.networkId;
    const entry = await this.deps.addressBook.entry(intent.userId, networkId, intent.recipient);
    if (!entry?.ownershipProvedAt) {
      const base = `/api/v1/transfer/address-book/${networkId}/${intent.recipient}/ownership`;
      throw new HttpError(
        422,
        'address-ownership-required',
        'Prove you control this address',
        `${worth}. If ${intent.recipient} is an account at another VASP (an exchange), send its travel_address (the "ta…" Travel Address that VASP shows with the deposit address), or for a Korean exchange on CODE's network its beneficiary_vasp (GET /api/v1/transfer/vasps), and beneficiary_name. If it is a wallet of your own, prove once that it is yours: ${entry ? '' : 'add it to your address book (POST /api/v1/transfer/address-book), then '}POST ${base}/challenge, sign its message with that address's key (EVM: EIP-191 personal_sign; SOLANA: ed25519), and POST ${base} {"signature"}.`,
        undefined,
        {},
        false,
        { challenge: `${base}/challenge`, inAddressBook: Boolean(entry), ...limits },
      );
    }
    return {};
  }

  /** The VASP a Travel Address names (422 for one that does not decode, or names a VASP we do not exchange with). */
  private counterpartOf(travelAddress: string, worth: string): { counterpart: TravelRuleCounterpart; url: string } {
    let url: string;
    try {
      url = decodeTravelAddress(travelAddress);
    } catch (error) {
      throw problems.unprocessable(
        'travel-address-invalid',
        `travel_address is not a Travel Address: ${(error as Error).message}`,
      );
    }
    const counterpart = counterpartAt(this.deps.counterparts, url);
    if (!counterpart)
      throw problems.unprocessable(
        'travel-address-unknown-vasp',
        `${worth}, and the Travel Address names ${new URL(url).host}, which is not a VASP we exchange Travel Rule data with: nothing can be sent there from this service`,
        { host: new URL(url).host },
      );
    return { counterpart, url };
  }
}

/** 422 beneficiary-name-required: the recipient's VASP must be told who receives the transfer. */
const nameRequired = (worth: string, vasp: { id: string; name: string }, limits: Record<string, string>) =>
  new HttpError(
    422,
    'beneficiary-name-required',
    'Beneficiary name required',
    `${worth}, and the recipient's account is at ${vasp.name}, which must be told who receives it: send beneficiary_name (the recipient's name as ${vasp.name} knows it) with the transfer and in its PIN approval.`,
    undefined,
    {},
    false,
    { vasp: { id: vasp.id, name: vasp.name }, ...limits },
  );
