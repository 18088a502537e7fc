import type { Client } from '@temporalio/client';
import type { Orm } from '../../db/orm';
import { CredentialStatusListEntity, VerifiableCredentialEntity, type VerifiableCredential } from '../../db/entities';
import type { DataEncryption } from '../../platform/data-encryption';
import { WALLET_CONTEXT } from '../../integrations/credentials/issuer';
import { openCredential } from '../../integrations/credentials/records';
import { STATUS_LIST_TTL_MS } from '../../integrations/credentials/status-list';
import { credentialRevocationWorkflow } from '../../workflows/account';
import { credentialRevocationWorkflowId } from '../../workflows/messages';
import { defineRoute, type RouteSpec } from '../http/route-table';
import { problems } from '../http/problems';
import * as S from '../did/schemas';
import { findPage, nextLink, type KeysetOrder } from '../http/pagination';
import { PAGE_LINK_HEADER } from '../common/schemas';

const CREDENTIAL_ORDER: KeysetOrder<'issuedAt' | 'vcId'> = {
  list: 'credentials',
  fields: ['issuedAt', 'vcId'],
  kinds: ['date', 'string'],
  order: 'desc',
};

export interface CredentialRouteDeps {
  orm: Orm;
  encryption: DataEncryption;
  temporal: Client;
  taskQueue: string;
}

const TAGS = ['Decentralized identity'];

const statusOf = (row: VerifiableCredential, now = Date.now()) =>
  row.revokedAt ? ('revoked' as const) : row.validUntil.getTime() <= now ? ('expired' as const) : ('active' as const);

const revocationOf = (row: VerifiableCredential) => ({
  vcId: row.vcId,
  status: 'revoked' as const,
  revokedAt: row.revokedAt!.toISOString(),
  reason: row.revocationReason!,
});

export function credentialRoutes({ orm, encryption, temporal, taskQueue }: CredentialRouteDeps): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/did/vcs',
      operationId: 'listCredentials',
      tags: TAGS,
      auth: 'bearer',
      summary:
        'Verifiable credentials issued to the caller, with their status (KYC at registration and again naming the holder once deployed, basic information when submitted)',
      description:
        'Every credential of the caller, newest first, revoked and expired ones included, a page at a time; `status` is ' +
        'worked out when asked, so a credential past `validUntil` reads `expired`. A KycCredential issued before ' +
        'the account was deployed on the DID network names no holder (`holder` null: a bearer credential) and is ' +
        'revoked as `superseded` once the one naming the holder is issued. GET /v1/did/vcs/{vcId} answers the ' +
        'signed document.',
      query: S.CredentialQuery,
      responses: {
        200: { description: 'Credentials, newest first', schema: S.CredentialList, headers: PAGE_LINK_HEADER },
        422: { description: 'A cursor this list did not make (invalid-cursor)' },
      },
      handler: async ({ user, query }, ctx) => {
        const page = await findPage<VerifiableCredential, string>(
          orm.em.fork(),
          VerifiableCredentialEntity,
          { userId: user.userId },
          CREDENTIAL_ORDER,
          query,
          { defaultLimit: 50, whole: true },
        );
        return {
          status: 200,
          headers: nextLink(ctx, page.nextCursor),
          body: {
            items: page.items.map((r) => {
              const { credentialStatus } =
                r.statusListId == null ? { credentialStatus: undefined } : openCredential(encryption, r);
              return {
                vcId: r.vcId,
                type: r.type,
                status: statusOf(r),
                holder: r.holder ?? null,
                validFrom: r.validFrom.toISOString(),
                validUntil: r.validUntil.toISOString(),
                issuedAt: r.issuedAt.toISOString(),
                revokedAt: r.revokedAt?.toISOString() ?? null,
                revocationReason: r.revocationReason ?? null,
                statusListCredential: credentialStatus?.statusListCredential ?? null,
              };
            }),
            nextCursor: page.nextCursor,
            hasMore: page.hasMore,
          },
        };
      },
    }),

    defineRoute({
      method: 'get',
      path: '/v1/did/vcs/:vcId',
      operationId: 'getCredential',
      tags: TAGS,
      auth: 'bearer',
      summary:
        "One of the caller's verifiable credentials (W3C VC 2.0, eddsa-rdfc-2022 Data Integrity proof by the issuer did:key)",
      description:
        'The credential as signed, revoked or not: its `credentialStatus` (BitstringStatusListEntry) is where anyone checks whether it still stands.',
      params: S.CredentialParams,
      responses: {
        200: { description: 'Verifiable credential', schema: S.VerifiableCredential },
        404: { description: 'No such credential for this user' },
      },
      handler: async ({ params, user }) => {
        const row = await orm.em.fork().findOne(VerifiableCredentialEntity, { vcId: params.vcId, userId: user.userId });
        if (!row) throw problems.notFound(`Credential ${params.vcId}`);
        return { status: 200, body: openCredential(encryption, row) };
      },
    }),

    defineRoute({
      method: 'get',
      path: '/v1/credentials/status/:listId',
      operationId: 'getStatusList',
      tags: TAGS,
      auth: 'none',
      credentials: false,
      summary:
        'A status list of the issuer (W3C Bitstring Status List): what verifiers fetch to learn whether a credential was revoked',
      description: `Public: it tells nothing about which credential a verifier checks (131072 positions, allocated out of order). Re-signed by the worker on every revocation; cache it for its \`ttl\` (${STATUS_LIST_TTL_MS / 1000} s).`,
      params: S.StatusListParams,
      responses: {
        200: { description: 'BitstringStatusListCredential', schema: S.StatusListCredential },
        404: { description: 'No such list' },
      },
      handler: async ({ params }) => {
        const list = await orm.em.fork().findOne(CredentialStatusListEntity, { id: Number(params.listId) });
        if (!list) throw problems.notFound(`Status list ${params.listId}`);
        return {
          status: 200,
          body: JSON.parse(list.document),
          headers: { 'cache-control': `public, max-age=${STATUS_LIST_TTL_MS / 1000}` },
        };
      },
    }),

    defineRoute({
      method: 'post',
      path: '/v1/credentials/:vcId/revoke',
      operationId: 'revokeCredential',
      tags: TAGS,
      auth: 'operator',
      summary:
        "Revoke a user's credential (operator): its status bit is set and the list re-signed; credential.revoked follows",
      description:
        'Run by the workflow credential-revocation-<vcId> (the worker holds the issuer key); the answer waits for it. A credential revoked already answers its revocation unchanged.',
      params: S.CredentialParams,
      body: S.RevokeBody,
      idempotency: { required: false, scope: ({ operator }) => `operator:${operator}` },
      responses: { 200: { description: 'Revoked', schema: S.Revocation }, 404: { description: 'No such credential' } },
      handler: async ({ params, body, operator }) => {
        const row = await orm.em.fork().findOne(VerifiableCredentialEntity, { vcId: params.vcId });
        if (!row) throw problems.notFound(`Credential ${params.vcId}`);
        if (row.revokedAt) return { status: 200, body: revocationOf(row) };
        const outcome = await temporal.workflow.execute(credentialRevocationWorkflow, {
          workflowId: credentialRevocationWorkflowId(params.vcId),
          taskQueue,
          workflowIdConflictPolicy: 'USE_EXISTING',
          workflowIdReusePolicy: 'ALLOW_DUPLICATE',
          args: [{ vcId: params.vcId, reason: body.reason.trim(), operator }],
        });
        return {
          status: 200,
          body: { vcId: outcome.vcId, status: 'revoked', revokedAt: outcome.revokedAt, reason: outcome.reason },
        };
      },
    }),

    defineRoute({
      method: 'get',
      path: '/contexts/credentials/v1',
      operationId: 'credentialsContext',
      tags: TAGS,
      auth: 'none',
      summary: 'The JSON-LD context of our credential types and terms (https://w3id.org/wallet-kr/credentials/v1)',
      description:
        'Public, no token: what `https://w3id.org/wallet-kr/credentials/v1`, the second `@context` entry of ' +
        'every credential issued to a user, stands for, exactly as the issuer signs with it. A verifier needs it to ' +
        'canonicalise a credential and check its proof: have the JSON-LD document loader answer that URL with ' +
        'this document (its terms are `@protected`).',
      responses: { 200: { description: 'JSON-LD context', schema: S.JsonLdContext } },
      handler: async () => ({ status: 200, body: WALLET_CONTEXT }),
    }),
  ];
}
