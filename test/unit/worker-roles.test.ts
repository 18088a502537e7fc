import { ConfigError, loadConfig, WORKER_CONFIG_KEYS } from '../../platform/config';
import { ACTIVITY_CAPABILITY, CAPABILITIES, WORKER_ROLES } from '../../workflows/capabilities';
import { activitiesOf, workerRoles } from '../../worker/worker-group';

const keys = ['WORKER_CAPABILITIES'] as const;

describe('WORKER_CAPABILITIES (what a worker process runs)', () => {
  it('is a worker setting: every role when unset', () => {
    expect(WORKER_CONFIG_KEYS).toContain('WORKER_CAPABILITIES');
    expect(workerRoles(loadConfig({}, keys).WORKER_CAPABILITIES)).toEqual([...WORKER_ROLES]);
  });

  it('takes any of the roles, each once, in a fixed order', () => {
    for (const role of WORKER_ROLES)
      expect(workerRoles(loadConfig({ WORKER_CAPABILITIES: role }, keys).WORKER_CAPABILITIES)).toEqual([role]);
    expect(workerRoles(loadConfig({ WORKER_CAPABILITIES: 'bank,workflows,bank' }, keys).WORKER_CAPABILITIES)).toEqual([
      'workflows',
      'bank',
    ]);
  });

  it('refuses a name it does not know, or a malformed list, naming the setting', () => {
    for (const bad of ['chain', 'workflows,,bank', 'Workflows', 'bank ', ',bank'])
      expect(() => loadConfig({ WORKER_CAPABILITIES: bad }, keys)).toThrow(/WORKER_CAPABILITIES/);
    expect(() => workerRoles('workflows,mail')).toThrow(ConfigError);
    expect(() => workerRoles('workflows,mail')).toThrow(/unknown mail/);
  });

  it("gives a capability's worker that capability's activities and no other", () => {
    const all = Object.fromEntries(Object.keys(ACTIVITY_CAPABILITY).map((name) => [name, () => name]));
    const seen = new Set<string>();
    for (const capability of CAPABILITIES) {
      const own = Object.keys(activitiesOf(all, capability));
      expect(own.length).toBeGreaterThan(0);
      for (const name of own) expect(ACTIVITY_CAPABILITY[name as keyof typeof ACTIVITY_CAPABILITY]).toBe(capability);
      own.forEach((name) => seen.add(name));
    }
    // What no capability takes is the database's alone, run beside the workflows.
    const core = Object.keys(all).filter((name) => !seen.has(name));
    for (const name of core) expect(ACTIVITY_CAPABILITY[name as keyof typeof ACTIVITY_CAPABILITY]).toBe('core');
    expect(activitiesOf(all, 'chains')).toHaveProperty('submitTransfer');
    expect(activitiesOf(all, 'chains')).not.toHaveProperty('finishTransfer');
  });
});
