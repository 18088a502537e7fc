import type { Orm } from '../../db/orm';
import { VerifiableCredentialEntity } from '../../db/entities';
import type { DataEncryption } from '../../platform/data-encryption';
import { WALLET_CONTEXT } from '../../integrations/credentials/issuer';
import { openCredential } from '../../integrations/credentials/records';
import { defineRoute, type RouteSpec } from '../http/route-table';
import { problems } from '../http/problems';
import * as S from '../did/schemas';

export interface CredentialRouteDeps { orm: Orm; encryption: DataEncryption }

const TAGS = ['Decentralized identity'];

export function credentialRoutes({ orm, encryption }: CredentialRouteDeps): RouteSpec[] {
  return [
    defineRoute({
      method: 'get', path: '/v1/did/vcs', operationId: 'listCredentials', tags: TAGS, auth: 'bearer',
      summary: 'Verifiable credentials issued to the caller (KYC at registration, basic information when submitted)',
      responses: { 200: { description: 'Credentials, newest first', schema: S.CredentialList } },
      handler: async ({ user }) => {
        const rows = await orm.em.fork().find(VerifiableCredentialEntity, { userId: user!.userId }, { orderBy: { issuedAt: 'desc' } });
        return {
          status: 200,
          body: {
            items: rows.map((r) => ({
              vcId: r.vcId, type: r.type, validFrom: r.validFrom.toISOString(), validUntil: r.validUntil.toISOString(), issuedAt: r.issuedAt.toISOString(),
            })),
          },
        };
      },
    }),

    defineRoute({
      method: 'get', path: '/v1/did/vcs/:vcId', operationId: 'getCredential', tags: TAGS, auth: 'bearer',
      summary: 'One of the caller\'s verifiable credentials (W3C VC 2.0, eddsa-rdfc-2022 Data Integrity proof by the issuer did:key)',
      params: S.CredentialParams,
      responses: { 200: { description: 'Verifiable credential', schema: S.VerifiableCredential }, 404: { description: 'No such credential for this user' } },
      handler: async ({ params, user }) => {
        const row = await orm.em.fork().findOne(VerifiableCredentialEntity, { vcId: params.vcId, userId: user!.userId });
        if (!row) throw problems.notFound(`Credential ${params.vcId}`);
        return { status: 200, body: openCredential(encryption, row) };
      },
    }),

    defineRoute({
      method: 'get', path: '/contexts/credentials/v1', operationId: 'credentialsContext', tags: TAGS, auth: 'none',
      summary: 'The JSON-LD context of our credential types and terms (https://w3id.org/wallet-kr/credentials/v1)',
      responses: { 200: { description: 'JSON-LD context', schema: S.JsonLdContext } },
      handler: async () => ({ status: 200, body: WALLET_CONTEXT }),
    }),
  ];
}
