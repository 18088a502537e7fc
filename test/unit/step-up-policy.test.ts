import { readFileSync } from 'node:fs';
import type { EntityManager } from '@mikro-orm/core';
import { offlineOpenApi, offlineRoutes } from '../../api/openapi-document';
import type { RouteSpec } from '../../api/http/route-table';
import { pageWithTable, SECURITY_PAGE } from '../../scripts/security-table';
import { EVENT_TYPES } from '../../platform/events';
import { SECURITY_EVENT_TYPES } from '../../workflows/messages';
import { noticeText } from '../../activities/security-notice';
import type { Event } from '../../db/entities';

type Json = Record<string, any>;

/** The step-up policy as data (api/http/step-up.ts): what the router enforces, the docs show and the person is told. */
describe('the step-up policy of the routes', () => {
  const routes = offlineRoutes();
  const policies = routes.filter((r) => r.stepUp);

  it('is the table docs/security.md shows (npm run docs:security writes it)', () => {
    const page = readFileSync(SECURITY_PAGE, 'utf8');
    expect(pageWithTable(page)).toBe(page);
    for (const route of policies)
      expect(page).toContain(`\`${route.method.toUpperCase()} ${route.path.replace(/:(\w+)/g, '{$1}')}\``);
  });

  it('lets every route take the proofs its policy accepts, and answer a request without one (its body schema has their fields, optional)', () => {
    const missing: string[] = [];
    for (const route of policies) {
      const policy = route.stepUp!;
      if (policy.checkedBy && policy.anyOf.every((set) => set.includes('owner_key'))) continue;
      const schema = (route.body ?? route.multipart?.fields) as
        { properties?: Record<string, unknown>; required?: string[] } | undefined;
      const fields = Object.keys(schema?.properties ?? {});
      // A required proof field would be refused by the validator (400) before the step-up could say what to send.
      const required = schema?.required ?? [];
      const needs = new Set(
        policy.anyOf.flatMap((set) =>
          set.includes('pin')
            ? [policy.pinField ?? 'pin']
            : set.includes('passkey')
              ? ['passkeyAssertion']
              : set.includes('identity')
                ? ['identityCheckId']
                : [],
        ),
      );
      for (const field of needs) {
        if (!fields.includes(field)) missing.push(`${route.operationId}: ${field}`);
        if (required.includes(field)) missing.push(`${route.operationId}: ${field} is required`);
      }
      // A proof the policy does not take is no field of its body (the document's step-up-ambiguous relies on it).
      for (const field of ['passkeyAssertion', 'identityCheckId'])
        if (fields.includes(field) && !needs.has(field)) missing.push(`${route.operationId}: ${field} is not taken`);
    }
    expect(missing).toEqual([]);
  });

  /**
   * What each proof's check answers, by status (api/common/step-up.ts with api/pin/service.ts,
   * api/passkeys/service.ts, api/auth/identity-checks.ts): the document lists them on every route whose policy takes
   * that proof, so a new route gets them from its policy.
   */
  const REFUSALS: Record<'pin' | 'passkey' | 'identity', Record<number, string[]>> = {
    pin: {
      409: ['pin-already-used', 'pin-not-set'],
      422: ['invalid-pin', 'invalid-pin-encryption', 'pin-not-bound', 'pin-not-for-this-request', 'wrong-pin'],
      423: ['pin-locked', 'pin-reset-required'],
    },
    passkey: {
      403: ['passkey-on-hold'],
      404: ['not-found'],
      409: ['challenge-used'],
      410: ['challenge-expired'],
      422: ['invalid-passkey-assertion', 'passkey-approval-not-for-this-request', 'unknown-passkey'],
    },
    identity: {
      404: ['not-found'],
      409: ['identity-check-not-verified', 'identity-check-used'],
      410: ['identity-check-expired'],
      422: ['identity-check-not-for-this-request'],
    },
  };
  /** Where the API screens an address against sanctions lists: a recipient, or a key about to own the accounts. */
  const SCREENING = [
    'addRecipient',
    'prepareCryptoTransfer',
    'executeCryptoTransfer',
    'prepareDeploy',
    'prepareKeyRotation',
    'startRecovery',
  ];

  it('lists in the OpenAPI document, under their statuses, the refusals of the proofs each route takes and of the screening it does', () => {
    const document = offlineOpenApi() as Json;
    /** The problem types the document shows under a status of the route's operation. */
    const listed = (route: RouteSpec, status: number): string[] => {
      const response = document.paths[route.path.replace(/:(\w+)/g, '{$1}')][route.method].responses[status] as Json;
      return Object.keys(Object.values<Json>(response?.content ?? {})[0]?.examples ?? {});
    };
    const missing: string[] = [];
    const lists = (route: RouteSpec, status: number, types: string[]) => {
      for (const type of types)
        if (!listed(route, status).includes(type)) missing.push(`${route.operationId} ${status} ${type}`);
    };
    for (const route of policies) {
      const policy = route.stepUp!;
      // The proof each set is presented as (the ID card comes with the identity check; the owner key signs elsewhere).
      const proofs = [
        ...new Set(
          policy.anyOf.flatMap((set) => (['pin', 'passkey', 'identity'] as const).find((p) => set.includes(p)) ?? []),
        ),
      ];
      if (!proofs.length) continue;
      lists(route, 422, ['step-up-required', ...(proofs.length > 1 ? ['step-up-ambiguous'] : [])]);
      for (const proof of proofs)
        for (const [status, types] of Object.entries(REFUSALS[proof])) lists(route, Number(status), types);
      if (
        proofs.includes('identity') &&
        policy.anyOf.every((set) => !set.includes('identity') || set.includes('id_card'))
      )
        lists(route, 422, ['identity-check-needs-id-card']);
    }
    for (const route of routes.filter((r) => SCREENING.includes(r.operationId))) {
      lists(route, 422, ['recipient-sanctioned']);
      lists(route, 503, ['screening-unavailable']);
    }
    expect(missing).toEqual([]);
    expect(
      routes
        .filter((r) => r.screens)
        .map((r) => r.operationId)
        .sort(),
    ).toEqual([...SCREENING].sort());
  });

  it('tells the person of what it says: every notice is an event, and every mailed one has its mail', async () => {
    const stubEm = { findOne: async () => null } as unknown as EntityManager;
    const encryption = { fingerprint: () => 'code' } as never;
    for (const route of policies) {
      const notice = route.stepUp!.notice;
      if (!notice) continue;
      expect([route.operationId, notice.event in EVENT_TYPES]).toEqual([route.operationId, true]);
      if (!notice.mailed) continue;
      expect([route.operationId, (SECURITY_EVENT_TYPES as readonly string[]).includes(notice.event)]).toEqual([
        route.operationId,
        true,
      ]);
      for (const role of ['current', 'previous'] as const) {
        const event = { type: notice.event, resourceId: 'r', data: {}, createdAt: new Date() } as unknown as Event;
        const text = await noticeText(stubEm, event, { newPasskeyHoldSeconds: 60, encryption, role });
        expect(text.subject.length).toBeGreaterThan(10);
      }
    }
  });

  it('holds every route that changes credentials, channels, owners, devices or the backup against a device on hold', () => {
    const held = new Set(policies.filter((r) => r.stepUp!.hold).map((r) => r.operationId));
    for (const operationId of [
      'setPin',
      'changePin',
      'resetPin',
      'requestEmailVerification',
      'confirmEmail',
      'registerPasskey',
      'removePasskey',
      'revokeDevice',
      'replaceWalletBackup',
      'getWalletBackup',
      'startRecovery',
      'closeAccount',
      'renewKyc',
      'executeKeyRotation',
      'executeTransferKeyChange',
      'executeCryptoTransfer',
    ])
      expect([operationId, held.has(operationId)]).toEqual([operationId, true]);
  });
});
