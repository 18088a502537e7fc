import type { TLSSocket } from 'node:tls';
import type { Context } from 'koa';
import { defineRoute, type RouteSpec } from '../http/route-table';
import type { ComplianceService } from './service';
import type { InboundTravelRule, TrpPeer } from './inbound';
import * as S from './schemas';
import { nextLink } from '../http/pagination';
import { PAGE_LINK_HEADER } from '../common/schemas';

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
      description:
        'Check it when transfers or address-book additions answer 503 `screening-unavailable`: while `status` is ' +
        '`missing` or `stale` (past `staleAfter`), screening fails closed and every screened request answers ' +
        'that 503; a configured `provider` that does not answer does the same, which this does not show. The ' +
        'Temporal schedule `scheduleId` reads the list every SANCTIONS_LIST_REFRESH_MINUTES (360); a failed read ' +
        'leaves the stored list and its `refreshedAt` as they were.',
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
        'Read the list now (besides the schedule): once read, the new list replaces the stored one whole, delistings included',
      description:
        'For a list that went `stale` or `missing`, or one issued since the last read: each call starts a run of ' +
        'its own (`workflowId`, in the Temporal UI), also while the schedule is paused. The run downloads ' +
        'SANCTIONS_LIST_URL (about 100 MB, minutes) in up to 5 attempts; a download that is broken, is not the ' +
        'list or names no address stores nothing, and the stored list stays. GET /v1/compliance/sanctions-list ' +
        'shows the result (`refreshedAt`, `listDate`, `addressCount`).',
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
      description:
        'Served on the TRP listener (TRAVEL_RULE_PORT) to the VASPs of TRAVEL_RULE_COUNTERPARTS only, each known ' +
        'by its pinned client certificate; the answer resolves the inquiry, and nothing is ever posted to its ' +
        '`callback`. Approved only when the IVMS101 beneficiary account is an active user account that receives ' +
        'the asset and a beneficiary name is the verified one (spaces aside); every other case gets the same ' +
        'rejection, and our record keeps the real reason. A retry with the same `request-identifier` is answered ' +
        'the same and counts only against the counterpart limit (600 an hour), not the address limit (10 new ' +
        'inquiries a day, whoever asks).',
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
      description:
        'Post it at the `callback` URL of our approval once the transfer is on chain (`txid`) or will not be ' +
        'sent (`canceled`, with why); only the VASP that got the approval can, and only for an approved inquiry ' +
        '(else 404). It is recorded with our record of the inquiry; the same confirmation again answers 204, a ' +
        'different one 409.',
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
      description:
        'For a VASP that answered our inquiry with `{version}` only: post the decision here when it is made (the ' +
        'token in the URL ties it to one transfer). The transfer waits up to TRAVEL_RULE_TIMEOUT_SECONDS (3600), ' +
        'then fails with nothing signed; an approval must name the address of the transfer, and once the ' +
        'transaction is included its id is posted to the `callback` the approval names (on that VASP origin ' +
        'only). The first decision counts: a repeat changes nothing, and once workflow transfer-<id> has ended ' +
        'any decision answers 409.',
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
      description:
        'The work queue is `status=open`: a monitoring case (`source: monitoring`) holds a transfer until POST ' +
        '/v1/compliance/cases/{caseId}/decision, while a sanctions hit (`kind: sanctions_hit`) records a refusal ' +
        'already made (one case per finding while it is open). A page at a time (`limit`, 100 by default, up to ' +
        '500; `cursor`), narrowed by `status` or `userId`.',
      query: S.CaseQuery,
      responses: {
        200: { description: 'Cases', schema: S.CaseList, headers: PAGE_LINK_HEADER },
        422: { description: 'A cursor this list did not make (invalid-cursor)' },
      },
      handler: async ({ query }, ctx) => {
        const page = await compliance.cases(query);
        return { status: 200, body: page, headers: nextLink(ctx, page.nextCursor) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/compliance/users/:userId/records',
      operationId: 'exportComplianceRecords',
      tags: TAGS,
      auth: 'operator',
      summary:
        "Export a user's compliance records: cases and every Travel Rule exchange with its IVMS101 payload (kept five years, account closed or not)",
      description:
        'For a request from a regulator or an auditor: the cases and every Travel Rule exchange about the user, ' +
        'in both directions and oldest first, each IVMS101 message opened from its sealed form, so the export is ' +
        'personal data. Travel Rule records are kept until their `retainUntil` (COMPLIANCE_RETENTION_DAYS after ' +
        'each was made), also after the account is closed; a user with none, or an unknown id, answers empty ' +
        'lists rather than 404.',
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
        'Decide a case, with the reason (who and when are recorded): on a held transfer (monitoring), approve lets it go on and reject fails it, nothing sent',
      description:
        'On a monitoring case the decision is signalled to the held transfer: approved, it goes on (Travel Rule, ' +
        'screening, signing); rejected, it fails with nothing signed, its `error` giving the reason the user ' +
        'sees. On a `sanctions_hit` case it is only recorded: the refusal stands, and the address stays refused ' +
        'while it is listed. The same decision again answers the case and sends the signal again, so a retry is ' +
        'safe; `compliance.case_decided` is written once.',
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
      description:
        'A sanctions hit gives the `address`, what named it (`source`, `programme`) and where it was caught ' +
        '(`foundAt`: prepare, execute, address-book, or workflow just before signing). A monitoring case gives ' +
        'the rule (`kind`), what it saw (`detail`) and the held `transferId`, which waits until the case is ' +
        'decided; `decidedBy`, `decidedAt` and `reason` are set then.',
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
