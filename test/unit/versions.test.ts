import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_VERSION } from '../../api/http/openapi';

const ROOT = join(__dirname, '../..');
const versionOf = (path: string): string =>
  (JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as { version: string }).version;

describe('one version number', () => {
  it("is the API's (info.version), the service package's, the client's and the CHANGELOG's latest release", () => {
    const released = /^## \[(\d+\.\d+\.\d+)\]/m.exec(readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8'))?.[1];
    expect({
      package: versionOf('package.json'),
      client: versionOf('clients/typescript/package.json'),
      lock: versionOf('package-lock.json'),
      changelog: released,
    }).toEqual({ package: API_VERSION, client: API_VERSION, lock: API_VERSION, changelog: API_VERSION });
  });
});
