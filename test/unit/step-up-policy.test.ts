import { readFileSync } from 'node:fs';
import type { EntityManager } from '@mikro-orm/core';
import { offlineRoutes } from '../../api/openapi-document';
import { pageWithTable, SECURITY_PAGE } from '../../scripts/security-table';
import { EVENT_TYPES } from '../../platform/events';
import { SECURITY_EVENT_TYPES } from '../../workflows/messages';
import { noticeText } from '../../activities/security-notice';
import type { Event } from '../../db/entities';

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

  it('lets every route take the proofs its policy accepts (its body schema has their fields)', () => {
    const missing: string[] = [];
    for (const route of policies) {
      const policy = route.stepUp!;
      if (policy.checkedBy && policy.anyOf.every((set) => set.includes('owner_key'))) continue;
      const schema = (route.body ?? route.multipart?.fields) as { properties?: Record<string, unknown> } | undefined;
      const fields = Object.keys(schema?.properties ?? {});
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
      for (const field of needs) if (!fields.includes(field)) missing.push(`${route.operationId}: ${field}`);
    }
    expect(missing).toEqual([]);
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
