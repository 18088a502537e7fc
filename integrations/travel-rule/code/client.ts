import { randomInt } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { Type } from '@sinclair/typebox';
import { PROVIDER_REJECTED } from '../../../platform/failures';
import type { ProviderTransport } from '../../../platform/provider-settings';
import { ProviderUnavailable, expectAnswer, requestProvider, type ProviderHttpOptions } from '../../provider-http';
import {
  base64Of,
  codeKeyPair,
  codeSeed,
  openCodePayload,
  sealCodePayload,
  signCodeRequest,
  type CodeKeyPair,
} from './crypto';

/**
 * CODE's (CodeVASP's) Request API as a member VASP calls its hub (https://docs.codevasp.com; dev
 * https://trapi-dev.codevasp.com, production https://trapi.codevasp.com): the beneficiary VASP's public key
 * (`GET /v1/code/Vasp/{id}/pubkey`), the beneficiary's address (`POST /v1/code/VerifyAddress/{id}`, the IVMS101
 * `Beneficiary.accountNumber` sealed), the transfer's authorization (`POST /v1/code/transfer/{id}`: the IVMS101
 * message sealed, answered `verified` or `denied` with the beneficiary's side sealed for us), its transaction id
 * (`POST /v1/code/transfer/{id}/txid`) and its end (`PUT /v1/code/transfer/{id}/status`, `canceled`). Every request
 * signed (crypto.ts) with the headers of "Dev 03 - Header Parameter"; errors `{errorType, errorMsg}`.
 */
export const CODE_API = 'https://trapi.codevasp.com';

/** The IVMS101 object CODE exchanges: entity objects in PascalCase, every value a string ("ivms101 standard"). */
export type CodeIvms101 = Record<string, unknown>;

const PubKeyAnswer = Type.Object({
  pubkeys: Type.Array(Type.Object({ pubkey: Type.String({ minLength: 40 }), expiresAt: Type.Optional(Type.Any()) }), {
    minItems: 1,
  }),
});
const VerifyAddressAnswer = Type.Object({
  result: Type.Union([Type.Literal('valid'), Type.Literal('invalid')]),
  reasonType: Type.Optional(Type.String()),
  reasonMsg: Type.Optional(Type.String()),
});
const TransferAnswer = Type.Object({
  result: Type.Union([Type.Literal('verified'), Type.Literal('denied')]),
  reasonType: Type.Optional(Type.String()),
  reasonMsg: Type.Optional(Type.String()),
  transferId: Type.String(),
  payload: Type.Optional(Type.String()),
});
const ResultAnswer = Type.Object({
  transferId: Type.String(),
  result: Type.String(),
  reasonType: Type.Optional(Type.String()),
});
const CodeError = Type.Object({ errorType: Type.String(), errorMsg: Type.Optional(Type.String()) });

/** The hub's refusals of the request itself that a retry of the same request cannot change. */
const REFUSALS = new Set([
  'INVALID_TARGET_VASP_ID',
  'INVALID_BENEFICIARY',
  'MISSING_REQUIRED_MSG_FIELD',
  'INVALID_MSG_FIELD_VALUE',
]);

export interface CodeTransferAuthorization {
  transferId: string;
  currency: string;
  amount: string;
  /** The transfer's value in tradeCurrency (quantity x price), as a decimal string. */
  tradePrice: string;
  tradeCurrency: string;
  isExceedingThreshold: boolean;
  ivms101: CodeIvms101;
  /** For counterparts on other networks through CODE's bridge (VerifyVASP, GTR): the address, tag and network. */
  address?: string;
  tag?: string;
  network?: string;
}

export type CodeDecision =
  { verified: true; ivms101: CodeIvms101 | null } | { verified: false; reasonType: string; reasonMsg: string };

export class CodeClient {
  private readonly http: ProviderHttpOptions;
  private keyPair?: Promise<CodeKeyPair>;
  private readonly signingKey: string;
  private readonly pubkeys = new Map<string, { pubkey: string; until: number }>();

  constructor(
    private readonly options: {
      apiUrl: string;
      /** Our VASP entity id at CODE (X-Request-Origin `code:{id}`). */
      entityId: string;
      /** Our Ed25519 signing key: the 32-byte seed, base64 (registered with CODE as our key pair). */
      signingKey: string;
      transport: ProviderTransport;
      now?: () => number;
    },
  ) {
    this.http = {
      baseUrl: options.apiUrl,
      timeoutMs: options.transport.timeoutMs,
      tls: options.transport.tls,
      readServerErrors: true,
      maxAnswerBytes: 256 * 1024,
    };
    // The seed is checked now; libsodium loads, and the pair is derived, at the first request (a worker that never
    // talks to CODE does not hold libsodium's ~11 MiB: issue 52).
    codeSeed(options.signingKey).fill(0);
    this.signingKey = options.signingKey;
  }

  private get keys(): Promise<CodeKeyPair> {
    return (this.keyPair ??= codeKeyPair(this.signingKey).catch((error: unknown) => {
      this.keyPair = undefined;
      throw error;
    }));
  }

  /** Our verify key (base64), as CODE's dashboard registers it and X-Code-Req-PubKey sends it. */
  async publicKey(): Promise<string> {
    return base64Of((await this.keys).publicKey);
  }

  /** The beneficiary VASP's current public key (kept until it expires; asked again after a key refusal). */
  async publicKeyOf(entityId: string, fresh = false): Promise<string> {
    const kept = this.pubkeys.get(entityId);
    if (!fresh && kept && kept.until > this.now()) return kept.pubkey;
    const valid = (await this.publicKeysOf(entityId))[0];
    if (!valid) throw new ProviderUnavailable(`CODE lists no current public key of ${entityId}`);
    this.pubkeys.set(entityId, { pubkey: valid.pubkey, until: Math.min(valid.until, this.now() + 3_600_000) });
    return valid.pubkey;
  }

  /**
   * Every current public key CODE lists for a member (Public Key Search), the latest to expire first, with when each
   * expires (epoch ms; Infinity for none given): while a member rotates, both its keys are current.
   */
  async publicKeysOf(entityId: string): Promise<Array<{ pubkey: string; until: number }>> {
    const { body } = await this.send('GET', `/v1/code/Vasp/${encodeURIComponent(entityId)}/pubkey`);
    const { pubkeys } = expectAnswer(PubKeyAnswer, body, `CODE's public key of ${entityId}`);
    return pubkeys
      .map((k) => ({ pubkey: k.pubkey, until: k.expiresAt ? Date.parse(String(k.expiresAt)) : Infinity }))
      .filter((k) => !(k.until <= this.now()) && Buffer.from(k.pubkey, 'base64').length === 32)
      .sort((a, b) => b.until - a.until);
  }

  /** Whether the beneficiary VASP holds the address (`Beneficiary.accountNumber`, `address:tag`). */
  async verifyAddress(
    entityId: string,
    input: { currency: string; account: string; network?: string },
  ): Promise<{ valid: boolean; reasonType: string; reasonMsg: string }> {
    const answer = await this.sealed(
      entityId,
      `/v1/code/VerifyAddress/${encodeURIComponent(entityId)}`,
      (payload) => ({
        currency: input.currency,
        payload,
        ...(input.network ? { network: input.network } : {}),
      }),
      { ivms101: { Beneficiary: { beneficiaryPersons: [], accountNumber: [input.account] } } },
    );
    const { result, reasonType, reasonMsg } = expectAnswer(VerifyAddressAnswer, answer.body, 'a CODE address search');
    return { valid: result === 'valid', reasonType: reasonType ?? '', reasonMsg: reasonMsg ?? '' };
  }

  /** Asks the beneficiary VASP to authorize the transfer: verified (with its IVMS101 answer, opened) or denied. */
  async authorizeTransfer(entityId: string, input: CodeTransferAuthorization): Promise<CodeDecision> {
    const { ivms101, ...fields } = input;
    const answer = await this.sealed(
      entityId,
      `/v1/code/transfer/${encodeURIComponent(entityId)}`,
      (payload) => ({ ...fields, payload }),
      { ivms101 },
    );
    const decision = expectAnswer(TransferAnswer, answer.body, 'a CODE transfer authorization');
    if (decision.result === 'denied')
      return { verified: false, reasonType: decision.reasonType ?? '', reasonMsg: decision.reasonMsg ?? '' };
    const opened = decision.payload
      ? ((await openCodePayload(await this.keys, answer.remoteKey, decision.payload)) as { ivms101?: CodeIvms101 })
      : null;
    return { verified: true, ivms101: opened?.ivms101 ?? null };
  }

  /** The transaction id of an authorized transfer (as the node prints it). `normal`, or the hub's reason. */
  async reportTxid(entityId: string, input: { transferId: string; txid: string; vout?: string }) {
    const { body } = await this.send('POST', `/v1/code/transfer/${encodeURIComponent(entityId)}/txid`, input);
    return expectAnswer(ResultAnswer, body, 'a CODE transaction id report');
  }

  /** Ends an authorized transfer that will not be sent (`canceled`); the same end twice is a success. */
  async finishTransfer(entityId: string, input: { transferId: string; reasonType?: string }) {
    const { body } = await this.send('PUT', `/v1/code/transfer/${encodeURIComponent(entityId)}/status`, {
      transferId: input.transferId,
      status: 'canceled',
      ...(input.reasonType ? { reasonType: input.reasonType } : {}),
    });
    return expectAnswer(ResultAnswer, body, 'a CODE transfer end');
  }

  /** A request whose payload is sealed for the beneficiary VASP; a key the hub says is not current is asked again once. */
  private async sealed(
    entityId: string,
    path: string,
    bodyOf: (payload: string) => object,
    payload: object,
  ): Promise<{ body: unknown; remoteKey: string }> {
    for (let attempt = 0; ; attempt += 1) {
      const remoteKey = await this.publicKeyOf(entityId, attempt > 0);
      const sealedPayload = await sealCodePayload(await this.keys, remoteKey, payload);
      try {
        const { body } = await this.send('POST', path, bodyOf(sealedPayload), remoteKey);
        return { body, remoteKey };
      } catch (error) {
        if (attempt === 0 && error instanceof CodeKeyRefused) continue;
        throw error;
      }
    }
  }

  private async send(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    body?: object,
    remotePubKey?: string,
  ): Promise<{ status: number; body: unknown }> {
    const keys = await this.keys;
    const datetime = new Date(this.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const nonce = randomInt(0, 2 ** 32);
    const text = body === undefined ? '' : JSON.stringify(body);
    const headers: Record<string, string> = {
      'X-Code-Req-Datetime': datetime,
      'X-Code-Req-Nonce': String(nonce),
      'X-Code-Req-PubKey': base64Of(keys.publicKey),
      'X-Code-Req-Signature': await signCodeRequest(keys, datetime, text, nonce),
      'X-Request-Origin': `code:${this.options.entityId}`,
      ...(remotePubKey ? { 'X-Code-Req-Remote-PubKey': remotePubKey } : {}),
    };
    const { status, body: answer } = await requestProvider<unknown>(this.http, method, path, body, headers);
    if (status === 200) return { status, body: answer };
    const error =
      answer && typeof answer === 'object' && typeof (answer as { errorType?: unknown }).errorType === 'string'
        ? expectAnswer(CodeError, answer, 'a CODE error')
        : undefined;
    const what = `CODE answered ${status}${error ? ` ${error.errorType}${error.errorMsg ? ` (${error.errorMsg})` : ''}` : ''} on ${path}`;
    if (error?.errorType === 'INVALID_RECEIVER_PUBLIC_KEY') throw new CodeKeyRefused(what);
    if (status === 422 && error && REFUSALS.has(error.errorType))
      throw ApplicationFailure.create({
        type: PROVIDER_REJECTED,
        nonRetryable: true,
        message: what,
        details: [error, status],
      });
    // A timeout of the beneficiary (408), the hub's limit (429), its failure or ours (a signature, a nonce, a header:
    // an operator's fix, or a new nonce on the next try): retried.
    throw new ProviderUnavailable(what, { status });
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}

/** The hub does not take the beneficiary's public key we sealed for (it rotated): asked again, sealed again. */
class CodeKeyRefused extends ProviderUnavailable {}
