import { NetworkRegistry, transferWorkflowVersionOn } from '../../platform/networks';
import { TRANSFER_WORKFLOW_VERSION } from '../../workflows/messages';
import { unreachableEthereumJson } from '../helpers/networks';

/**
 * NETWORKS.<id>.transferSendLocal: whether a network's transfers send in the worker that runs their workflow (version
 * 5, a local activity) or on the chains' queue (version 4); TRANSFER_WORKFLOW_VERSION stays the highest either takes.
 */
describe("a network's transfer send", () => {
  const registry = (extra: Record<string, unknown>) => {
    const json = JSON.parse(unreachableEthereumJson()) as { ETHEREUM: Record<string, unknown> };
    return NetworkRegistry.fromJson(JSON.stringify({ ETHEREUM: { ...json.ETHEREUM, ...extra } }));
  };

  it("starts a network's transfers at version 5 only when its sends run locally, and never past the setting", () => {
    expect(TRANSFER_WORKFLOW_VERSION).toBe(5);
    const local = registry({ transferSendLocal: true }).any('ETHEREUM');
    const unset = registry({}).any('ETHEREUM');
    const activity = registry({ transferSendLocal: false }).any('ETHEREUM');
    expect([5, 4, 3].map((highest) => transferWorkflowVersionOn(local, highest))).toEqual([5, 4, 3]);
    expect([5, 4, 3].map((highest) => transferWorkflowVersionOn(unset, highest))).toEqual([4, 4, 3]);
    expect(transferWorkflowVersionOn(activity, 5)).toBe(4);
  });

  it('refuses a setting that is not true or false', () => {
    for (const bad of ['true', 1, null])
      expect(() => registry({ transferSendLocal: bad })).toThrow(/transferSendLocal/);
  });
});
