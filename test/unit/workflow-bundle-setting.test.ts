import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { loadConfig, WORKER_CONFIG_KEYS } from '../../platform/config';
import { createWorker } from '../../worker/create-worker';
import { DataEncryption } from '../../platform/data-encryption';
import type { ActivityDeps } from '../../activities';

const workerEnv = {
  DATABASE_URL: 'sqlite::memory:',
  DATA_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
};

describe('WORKFLOW_BUNDLE (the worker runs workflows bundled ahead)', () => {
  it('is a worker setting, unset by default', () => {
    expect(WORKER_CONFIG_KEYS).toContain('WORKFLOW_BUNDLE');
    const keys = ['DATABASE_URL', 'WORKFLOW_BUNDLE'] as const;
    expect(loadConfig(workerEnv, keys).WORKFLOW_BUNDLE).toBeUndefined();
    expect(loadConfig({ ...workerEnv, WORKFLOW_BUNDLE: '/srv/bundle.js' }, keys).WORKFLOW_BUNDLE).toBe(
      '/srv/bundle.js',
    );
    // An empty variable is unset, as every setting's.
    expect(loadConfig({ ...workerEnv, WORKFLOW_BUNDLE: '' }, keys).WORKFLOW_BUNDLE).toBeUndefined();
  });

  it('fails the start, before connecting anywhere, when the file is not there', async () => {
    const missing = join(tmpdir(), `no-such-bundle-${process.pid}.js`);
    await expect(
      createWorker(
        // Nothing listens on port 1: a start that went on past the check would fail on the connection instead.
        { address: '127.0.0.1:1', namespace: 'default', taskQueue: 'q', workflowBundle: missing },
        { encryption: new DataEncryption(workerEnv.DATA_ENCRYPTION_KEY) } as ActivityDeps & {
          encryption: DataEncryption;
        },
      ),
    ).rejects.toThrow(`WORKFLOW_BUNDLE ${missing} does not exist`);
  });
});
