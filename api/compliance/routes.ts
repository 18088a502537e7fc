import type { TLSSocket } from 'node:tls';
import type { Context } from 'koa';
import { defineRoute, type RouteSpec } from '../http/route-table';
import type { ComplianceService } from './service';
import type { InboundTravelRule, TrpPeer } from './inbound';
import * as S from './schemas';

const TAGS = ['Compliance'];

/** Compliance for operators (an operator credential): the sanctions list and its refresh, and the cases screening opened. */
export function complianceRoutes({
  compliance,
  inbound,
}: {
  compliance: ComplianceService;
  inbound: InboundTravelRule;
}): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/compliance/sanctions-list',
      operationId: 'getSanctionsList',
      tags: TAGS,
      auth: 'operator',
      summary:
        'The stored OFAC SDN list: its date, when it was last read, how many addresses, and whether screening can use it',
      responses: { 200: { description: 'The list', schema: S.SanctionsListView } },
      handler: async () => ({ status: 200, body: await compliance.sanctionsList() }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/compliance/sanctions-list/refresh',
      operationId: 'refreshSanctionsList',
      tags: TAGS,
      auth: 'operator',
      summary:
        'Read the list now (besides the schedule): the new list replaces the stored one at once, delistings included',
      responses: {
        202: {
          description: 'Refresh started (GET /v1/compliance/sanctions-list shows its result)',
          schema: S.RefreshStarted,
        },
      },
      handler: async ({ operator }) => ({ status: 202, body: await compliance.refresh(operator) }),
    }),
    defineRoute({
      method: 'post',
      path: '/trp/v3/inquiries',
      operationId: 'travelRuleInquiry',
      tags: ['Travel Rule'],
      auth: 'none',
      summary:
        "TRP v3 (on the TRP listener, mutual TLS): another VASP's transfer inquiry about one of our users' accounts, resolved in the answer",
      headers: S.TrpInquiryHeaders,
      body: S.TrpInquiryBody,
      responses: {
        200: {
          description:
            'Recorded and resolved: approved {address, callback} (the URL where the originator confirms the transfer), or rejected "beneficiary not confirmed" alike for an account that is not ours, a closed account or another name. The same request-identifier again is answered the same.',
          schema: S.TrpInquiryAnswer,
        },
        400: {
          description:
            'Not a TRP inquiry, a TRP version we do not read (3.1.x, 3.2.x), not a valid IVMS101 message, or a beneficiary account of no kind we serve',
        },
        401: { description: 'Not over mutual TLS with the certificate pinned for a VASP of TRAVEL_RULE_COUNTERPARTS' },
        429: {
          description:
            "Over the counterpart's limit of inquiries or the address's daily limit of new ones (whoever asks) (Retry-After)",
        },
      },
      handler: async ({ headers, body }, ctx) => ({
        status: 200,
        body: await inbound.inquiry(trpPeer(ctx), trpHeaders(headers), body),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/trp/v3/confirmations/:recordId/:token',
      operationId: 'travelRuleConfirmation',
      tags: ['Travel Rule'],
      auth: 'none',
      summary:
        "TRP v3 (on the TRP listener, mutual TLS): the originator's transfer confirmation at the URL our approval gave: {txid} or {canceled}",
      params: S.TrpConfirmationParams,
      headers: S.TrpHeadersSchema,
      body: S.TrpConfirmationBody,
      responses: {
        204: { description: 'Recorded (the same confirmation again too)' },
        400: { description: 'Neither or both of txid and canceled, or a TRP version we do not read' },
        401: { description: 'Not over mutual TLS with the certificate pinned for a VASP of TRAVEL_RULE_COUNTERPARTS' },
        404: { description: 'No approval of ours at this URL for this VASP' },
        409: { description: 'Confirmed otherwise already (travel-rule-confirmed)' },
      },
      handler: async ({ params, headers, body }, ctx) => {
        await inbound.confirmation(trpPeer(ctx), params, trpHeaders(headers), body);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/trp/v3/callbacks/:transferId/:token',
      operationId: 'travelRuleCallback',
      tags: ['Travel Rule'],
      auth: 'none',
      summary:
        "TRP v3 (on the TRP listener, mutual TLS): the beneficiary VASP's resolution of our inquiry ({approved: {address, callback}} or {rejected}), at the callback URL the inquiry named",
      params: S.TrpCallbackParams,
      headers: S.TrpHeadersSchema,
      body: S.TrpResolutionBody,
      responses: {
        200: { description: 'Received (the first decision counts)', schema: S.TrpReceived },
        400: { description: 'Not a TRP resolution (exactly one of approved, rejected, version)' },
        401: { description: 'Not over mutual TLS with the certificate of the VASP the inquiry went to' },
        404: { description: 'No such inquiry (or not this callback URL)' },
        409: { description: 'The transfer no longer waits for a decision (travel-rule-decided)' },
        422: { description: 'An approval naming another address' },
      },
      handler: async ({ params, headers, body }, ctx) => ({
        status: 200,
        body: await compliance.travelRuleCallback(
          inbound.counterpartOf(trpPeer(ctx)),
          trpHeaders(headers),
          params,
          body,
        ),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/compliance/cases',
      operationId: 'listComplianceCases',
      tags: TAGS,
      auth: 'operator',
      summary: 'Compliance cases, newest first: by status and by user',
      query: S.CaseQuery,
      responses: { 200: { description: 'Cases', schema: S.CaseList } },
      handler: async ({ query }) => ({ status: 200, body: await compliance.cases(query) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/compliance/users/:userId/records',
      operationId: 'exportComplianceRecords',
      tags: TAGS,
      auth: 'operator',
      summary:
        "Export a user's compliance records: cases and every Travel Rule exchange with its IVMS101 payload (kept five years, account closed or not)",
      params: S.UserParams,
      responses: { 200: { description: 'The records (empty lists for a user with none)', schema: S.UserRecords } },
      handler: async ({ params }) => ({ status: 200, body: await compliance.records(params.userId) }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/compliance/cases/:caseId/decision',
      operationId: 'decideComplianceCase',
      tags: TAGS,
      auth: 'operator',
      summary:
        'Decide a case: approve (a held transfer goes on) or reject (it fails, nothing sent), with the reason; who and when are recorded',
      params: S.CaseParams,
      body: S.DecisionBody,
      responses: {
        200: { description: 'The decided case', schema: S.CaseView },
        404: { description: 'No such case' },
        409: { description: 'Already decided otherwise (case-decided)' },
      },
      handler: async ({ params, body, operator }) => ({
        status: 200,
        body: await compliance.decide(params.caseId, operator, body),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/compliance/cases/:caseId',
      operationId: 'getComplianceCase',
      tags: TAGS,
      auth: 'operator',
      summary: 'One case: what was found, where, and its decision',
      params: S.CaseParams,
      responses: { 200: { description: 'Case', schema: S.CaseView }, 404: { description: 'No such case' } },
      handler: async ({ params }) => ({ status: 200, body: await compliance.case(params.caseId) }),
    }),
  ];
}

/** The TLS peer of a request on the TRP listener (undefined on the plain HTTP one). */
function trpPeer(ctx: Context | undefined): TrpPeer | undefined {
  const socket = ctx?.req.socket as TLSSocket | undefined;
  if (!socket?.encrypted) return undefined;
  return { authorized: socket.authorized, fingerprint256: socket.getPeerCertificate()?.fingerprint256 };
}

const trpHeaders = (headers: { 'api-version': string; 'request-identifier': string }) => ({
  apiVersion: headers['api-version'],
  requestIdentifier: headers['request-identifier'],
});
