import { defineRoute, type RouteSpec } from '../http/route-table';
import type { ComplianceService } from './service';
import * as S from './schemas';

const TAGS = ['Compliance'];

/** Compliance for operators (an operator credential): the sanctions list and its refresh, and the cases screening opened. */
export function complianceRoutes({ compliance }: { compliance: ComplianceService }): RouteSpec[] {
  return [
    defineRoute({
      method: 'get', path: '/v1/compliance/sanctions-list', operationId: 'getSanctionsList', tags: TAGS, auth: 'operator',
      summary: "The stored OFAC SDN list: its date, when it was last read, how many addresses, and whether screening can use it",
      responses: { 200: { description: 'The list', schema: S.SanctionsListView } },
      handler: async () => ({ status: 200, body: await compliance.sanctionsList() }),
    }),
    defineRoute({
      method: 'post', path: '/v1/compliance/sanctions-list/refresh', operationId: 'refreshSanctionsList', tags: TAGS, auth: 'operator',
      summary: 'Read the list now (besides the schedule): the new list replaces the stored one at once, delistings included',
      responses: { 202: { description: 'Refresh started (GET /v1/compliance/sanctions-list shows its result)', schema: S.RefreshStarted } },
      handler: async ({ operator }) => ({ status: 202, body: await compliance.refresh(operator!) }),
    }),
    defineRoute({
      method: 'get', path: '/v1/compliance/cases', operationId: 'listComplianceCases', tags: TAGS, auth: 'operator',
      summary: 'Compliance cases, newest first: by status and by user', query: S.CaseQuery,
      responses: { 200: { description: 'Cases', schema: S.CaseList } },
      handler: async ({ query }) => ({ status: 200, body: await compliance.cases(query) }),
    }),
    defineRoute({
      method: 'get', path: '/v1/compliance/cases/:caseId', operationId: 'getComplianceCase', tags: TAGS, auth: 'operator',
      summary: 'One case: what was found, where, and its decision', params: S.CaseParams,
      responses: { 200: { description: 'Case', schema: S.CaseView }, 404: { description: 'No such case' } },
      handler: async ({ params }) => ({ status: 200, body: await compliance.case(params.caseId) }),
    }),
  ];
}
