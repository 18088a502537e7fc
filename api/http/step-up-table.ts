import type { RouteSpec } from './route-table';
import type { StepUpProof } from './step-up';

const PROOF_NAMES: Record<StepUpProof, string> = {
  pin: 'the PIN',
  passkey: 'a passkey past its hold',
  identity: 'a fresh identity check',
  id_card: 'the ID card',
  owner_key: "the owner key's signature",
};

/** A stand-in for a part of the request a `binds` reads (params, body): any field of it is a string. */
const standIn = (): unknown => new Proxy({}, { get: () => 'x' });

/** The fields an approval of the policy names besides the action, read off its `binds` with a stand-in request. */
function boundFields(policy: NonNullable<RouteSpec['stepUp']>): string[] {
  if (!policy.binds) return [];
  const input = {
    params: standIn(),
    body: standIn(),
    query: standIn(),
    headers: standIn(),
    user: standIn(),
    file: { buffer: Buffer.from('x') },
  };
  try {
    return Object.keys(policy.binds(input as never, { get: () => '' } as never));
  } catch {
    return ['…'];
  }
}

const proofText = (policy: NonNullable<RouteSpec['stepUp']>): string => {
  if (!policy.anyOf.length) return 'none: the access token';
  const sets = policy.anyOf.map((set) => set.map((proof) => PROOF_NAMES[proof]).join(' with '));
  return `${sets.join(', or ')}${policy.checkedBy ? `, checked by ${policy.checkedBy}` : ''}`;
};

const noticeText = (policy: NonNullable<RouteSpec['stepUp']>): string =>
  policy.notice ? `${policy.notice.mailed ? 'mailed to every address; ' : ''}event \`${policy.notice.event}\`` : 'no';

/**
 * The step-up policy of every route as a Markdown table (docs/security.md: `npm run docs:security` writes it): the
 * action and what its approval binds, the route, the proof beyond the access token, the hold, the notice.
 */
export function stepUpTable(routes: RouteSpec[]): string {
  const rows = routes
    .filter((route) => route.stepUp)
    .map((route) => {
      const policy = route.stepUp!;
      const fields = boundFields(policy);
      const binds = `\`{"action":"${policy.action}"${fields.map((f) => `,"${f}":…`).join('')}}\``;
      const when = policy.appliesTo ? ' (another device only)' : '';
      return `| ${policy.does}${when} | \`${route.method.toUpperCase()} ${route.path.replace(/:(\w+)/g, '{$1}')}\` | ${binds} | ${proofText(policy)} | ${policy.hold ? 'yes' : 'no'} | ${noticeText(policy)} |`;
    });
  return [
    '| action | route | an approval names | proof beyond the access token | refused in a device hold | the person is told |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}
