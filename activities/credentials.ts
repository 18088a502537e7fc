import { randomUUID } from 'node:crypto';
import { raw, UniqueConstraintViolationException, type EntityManager, type FilterQuery } from '@mikro-orm/core';
import type { Orm } from '../db/orm';
import {
  CredentialStatusListEntity,
  SmartAccountEntity,
  VerifiableCredentialEntity,
  type VerifiableCredential as CredentialRow,
} from '../db/entities';
import { appendEvent } from '../db/events';
import type { DataEncryption } from '../platform/data-encryption';
import { credentialTime, type CredentialIssuer } from '../integrations/credentials/issuer';
import {
  newListParameters,
  signStatusList,
  statusEntry,
  statusIndex,
  statusListUrl,
  STATUS_LIST_LENGTH,
} from '../integrations/credentials/status-list';
import { credentialAad, openCredential } from '../integrations/credentials/records';
import { didOf } from '../integrations/evm/did-registry';
import type { EvmNetwork } from '../platform/networks';

export interface CredentialBookDeps {
  orm: Orm;
  encryption: DataEncryption;
  issuer: CredentialIssuer;
  credentialValiditySeconds: number;
  /** The API's public address: status list URLs in credentials are built on it (VC_STATUS_BASE_URL). */
  statusBaseUrl: string;
  /** The network whose EthereumDIDRegistry holds user DIDs (DID_NETWORK_ID), when configured. */
  didNetwork?: EvmNetwork;
}

export interface CredentialRequest {
  userId: string;
  /** The credential type after VerifiableCredential, e.g. KycCredential. */
  type: string;
  /** What is attested; one live credential per source key, so retries never issue twice. */
  sourceKey: string;
  subject: Record<string, unknown>;
  /** VC Data Model 2.0 `evidence`: how the claims were established (which verified, which only self-asserted). */
  evidence?: Array<Record<string, unknown>>;
  /** credentialSubject.id: the holder's DID, when the credential names them. */
  holder?: string | null;
}

export type RevocationReason = 'superseded' | 'account-closed' | `operator: ${string}`;

/** A list with no position left, found by an allocation: the activity's retry takes the next list. */
class StatusListFull extends Error {}

/**
 * Issues and revokes the service's verifiable credentials (worker only: it holds the issuer key). Every credential
 * carries a BitstringStatusListEntry (purpose revocation); revoking sets its bit and re-signs its list, in the
 * transaction that marks the credential revoked and appends credential.revoked.
 */
export class CredentialBook {
  constructor(private readonly deps: CredentialBookDeps) {}

  /** A list with a free position exists before an issuance transaction begins (creating one there could abort it). */
  async openList(): Promise<number> {
    const em = this.deps.orm.em.fork();
    const [newest] = await em.find(CredentialStatusListEntity, {}, { orderBy: { id: 'desc' }, limit: 1 });
    if (newest && newest.allocated < newest.length) return newest.id;
    const id = (newest?.id ?? 0) + 1;
    const document = await signStatusList(this.deps.issuer, {
      baseUrl: this.deps.statusBaseUrl,
      listId: id,
      revoked: [],
    });
    try {
      await em.insert(CredentialStatusListEntity, {
        id,
        purpose: 'revocation',
        length: STATUS_LIST_LENGTH,
        allocated: 0,
        ...newListParameters(),
        version: 0,
        document: JSON.stringify(document),
        updatedAt: new Date(),
      });
    } catch (error) {
      if (!(error instanceof UniqueConstraintViolationException)) throw error; // another worker opened it
    }
    return id;
  }

  /**
   * Signs a credential and stores it with its credential.issued event, in the caller's transaction. The status
   * position is taken in the same transaction (the list row stays locked until it commits), so a rolled-back
   * issuance leaves no position used.
   */
  async issue(tx: EntityManager, listId: number, request: CredentialRequest): Promise<CredentialRow> {
    const taken = await tx.nativeUpdate(
      CredentialStatusListEntity,
      { id: listId, allocated: { $lt: STATUS_LIST_LENGTH } },
      { allocated: raw('allocated + 1') },
    );
    if (taken !== 1) throw new StatusListFull(`status list ${listId} is full`);
    const list = await tx.findOneOrFail(CredentialStatusListEntity, { id: listId }, { refresh: true });
    const index = statusIndex(list, list.allocated - 1);
    const uuid = randomUUID();
    const validFrom = new Date(Math.floor(Date.now() / 1000) * 1000);
    const validUntil = new Date(validFrom.getTime() + this.deps.credentialValiditySeconds * 1000);
    const holder = request.holder ?? null;
    const credential = await this.deps.issuer.issue(
      {
        id: `urn:uuid:${uuid}`,
        type: ['VerifiableCredential', request.type],
        validFrom: credentialTime(validFrom),
        validUntil: credentialTime(validUntil),
        credentialSubject: holder ? { id: holder, ...request.subject } : request.subject,
        credentialStatus: statusEntry(this.deps.statusBaseUrl, listId, index),
        ...(request.evidence ? { evidence: request.evidence } : {}),
      },
      validFrom,
    );
    const row = tx.create(VerifiableCredentialEntity, {
      vcId: `vc_${uuid}`,
      userId: request.userId,
      type: request.type,
      sourceKey: request.sourceKey,
      holder,
      documentSealed: this.deps.encryption.sealText(JSON.stringify(credential), credentialAad(request.userId)),
      statusListId: listId,
      statusListIndex: index,
      validFrom,
      validUntil,
      issuedAt: new Date(), // to the millisecond: the list is newest first
    });
    await appendEvent(tx, {
      type: 'credential.issued',
      resourceId: row.vcId,
      userId: request.userId,
      data: { vcId: row.vcId, credentialType: request.type, holder },
    });
    return row;
  }

  /**
   * Issues a credential in a transaction of its own with `also` (what the credential comes with), unless a live one
   * for the source key exists: answers that one, so a retried activity issues once.
   */
  async issueOnce(
    request: CredentialRequest,
    also?: (tx: EntityManager, issued: CredentialRow) => Promise<void>,
  ): Promise<{ credential: CredentialRow; issued: boolean }> {
    const live = () => this.deps.orm.em.fork().findOne(VerifiableCredentialEntity, { sourceKey: request.sourceKey });
    const known = await live();
    if (known) return { credential: known, issued: false };
    const listId = await this.openList();
    try {
      const credential = await this.deps.orm.em.fork().transactional(async (tx) => {
        const issued = await this.issue(tx, listId, request);
        await also?.(tx, issued);
        return issued;
      });
      return { credential, issued: true };
    } catch (error) {
      if (!(error instanceof UniqueConstraintViolationException)) throw error;
      const raced = await live(); // a concurrent twin won
      if (!raced) throw error;
      return { credential: raced, issued: false };
    }
  }

  /**
   * Revokes the live credentials `where` selects, in the caller's transaction: each is marked revoked (its source key
   * freed for a new credential), gets a credential.revoked event, and every list concerned is re-signed with its bit
   * set. Lists are locked in id order before they are read, so concurrent revocations never lose each other's bits.
   * Answers the credentials revoked now (none when all were revoked already).
   */
  async revoke(
    tx: EntityManager,
    where: FilterQuery<CredentialRow>,
    reason: RevocationReason,
  ): Promise<CredentialRow[]> {
    const candidates = await tx.find(VerifiableCredentialEntity, {
      $and: [where, { revokedAt: null }],
    } as FilterQuery<CredentialRow>);
    if (candidates.length === 0) return [];
    const listIds = [...new Set(candidates.map((c) => c.statusListId).filter((id): id is number => id !== null))].sort(
      (a, b) => a - b,
    );
    for (const id of listIds)
      await tx.nativeUpdate(CredentialStatusListEntity, { id }, { version: raw('version + 1') });
    // Read again under the locks: a concurrent revocation may have taken some of these first.
    const credentials = await tx.find(
      VerifiableCredentialEntity,
      { vcId: { $in: candidates.map((c) => c.vcId) }, revokedAt: null },
      { refresh: true },
    );
    const now = new Date();
    for (const credential of credentials) {
      Object.assign(credential, {
        revokedAt: now,
        revocationReason: reason,
        sourceKey: `${credential.sourceKey}#revoked:${credential.vcId}`.slice(-240),
      });
      await appendEvent(tx, {
        type: 'credential.revoked',
        resourceId: credential.vcId,
        userId: credential.userId,
        data: {
          vcId: credential.vcId,
          credentialType: credential.type,
          reason,
          statusListCredential:
            credential.statusListId == null ? '' : statusListUrl(this.deps.statusBaseUrl, credential.statusListId),
          statusListIndex: credential.statusListIndex == null ? '' : String(credential.statusListIndex),
        },
      });
    }
    await tx.flush();
    for (const id of listIds) await this.resign(tx, id, now);
    return credentials;
  }

  /** Signs the list again from the credentials marked revoked (the source of truth), under the caller's lock on it. */
  private async resign(tx: EntityManager, listId: number, at: Date): Promise<void> {
    const list = await tx.findOneOrFail(CredentialStatusListEntity, { id: listId }, { refresh: true });
    const revoked = await tx.find(
      VerifiableCredentialEntity,
      { statusListId: listId, revokedAt: { $ne: null } },
      { fields: ['statusListIndex'] },
    );
    const document = await signStatusList(this.deps.issuer, {
      baseUrl: this.deps.statusBaseUrl,
      listId,
      revoked: revoked.map((r) => r.statusListIndex!),
      length: list.length,
      at,
    });
    list.document = JSON.stringify(document);
    await tx.flush();
  }

  /** The user's did:ethr when their account is deployed on the DID network, else null. */
  async holderOf(em: EntityManager, userId: string): Promise<string | null> {
    const network = this.deps.didNetwork;
    if (!network) return null;
    const account = await em.findOne(SmartAccountEntity, { userId, networkId: network.networkId, status: 'deployed' });
    return account ? didOf(network, account.address) : null;
  }

  /**
   * Once the user's account is deployed on the DID network (in that transaction): their KYC credential is issued
   * again naming them (credentialSubject.id = their did:ethr), and the one that named no holder is revoked as
   * superseded. Nothing to do when it was done already, so a retried completion changes nothing.
   */
  async bindKycToHolder(
    tx: EntityManager,
    listId: number,
    input: { userId: string; networkId: string; accountAddress: string },
  ): Promise<void> {
    const network = this.deps.didNetwork;
    if (!network || input.networkId !== network.networkId) return;
    const unbound = await tx.find(
      VerifiableCredentialEntity,
      { userId: input.userId, type: 'KycCredential', holder: null, revokedAt: null },
      { orderBy: { issuedAt: 'desc' } },
    );
    if (unbound.length === 0) return;
    const holder = didOf(network, input.accountAddress);
    const { credentialSubject } = openCredential(this.deps.encryption, unbound[0]!);
    const { id: _none, ...subject } = credentialSubject;
    await this.issue(tx, listId, {
      userId: input.userId,
      type: 'KycCredential',
      sourceKey: `${unbound[0]!.sourceKey}@${holder}`,
      subject,
      holder,
    });
    await this.revoke(tx, { vcId: { $in: unbound.map((c) => c.vcId) } }, 'superseded');
  }
}
