// npm install's last step (the root package's postinstall). npm itself may run on the machine's older Node, but every
// npm script runs on the Node 24 that the `node` dev dependency puts first on PATH (node_modules/.bin/node). A native
// module built by node-gyp during the install may target the other Node's ABI; this rebuilds it, against the headers
// that ship with the Node that runs us, until it loads. It changes nothing when the module already loads.
'use strict';
const { execFileSync } = require('node:child_process');
const { existsSync, mkdirSync, readFileSync, realpathSync, rmSync } = require('node:fs');
const { dirname, join } = require('node:path');

// Each module with the code that makes it open its binary (better-sqlite3 opens it on the first database).
const NATIVE = { 'better-sqlite3': "require('better-sqlite3')(':memory:').close()" };

function loads(name) {
  try {
    execFileSync(process.execPath, ['-e', NATIVE[name]], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

// The headers of the running Node: beside its binary (an official tarball, a Docker image), else from the npm registry's
// platform package of the same version (what the `node` package installed, which a later npm install may prune),
// unpacked once into .tools/node-<version>.
function hasHeaders(home) {
  const version = join(home, 'include', 'node', 'node_version.h');
  return (
    existsSync(version) &&
    readFileSync(version, 'utf8').includes(`#define NODE_MAJOR_VERSION ${process.versions.node.split('.')[0]}\n`)
  );
}

function nodeHeaders() {
  const beside = dirname(dirname(realpathSync(process.execPath)));
  if (hasHeaders(beside)) return beside;
  const cached = join(__dirname, '..', '.tools', `node-${process.version}`);
  if (hasHeaders(cached)) return cached;
  mkdirSync(cached, { recursive: true });
  const spec = `node-${process.platform}-${process.arch}@${process.versions.node}`;
  const file = execFileSync('npm', ['pack', spec, '--silent', '--pack-destination', cached], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .pop();
  execFileSync('tar', ['-xzf', join(cached, file), '-C', cached, '--strip-components=1', 'package/include']);
  rmSync(join(cached, file));
  return hasHeaders(cached) ? cached : undefined;
}

const headers = nodeHeaders();
for (const name of Object.keys(NATIVE)) {
  if (loads(name)) continue;
  console.log(`${name}: rebuilding for Node ${process.version}${headers ? ` with the headers in ${headers}` : ''}`);
  const env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` };
  if (headers) env.npm_config_nodedir = headers;
  execFileSync('npm', ['rebuild', name, '--foreground-scripts'], { stdio: 'inherit', env });
  if (!loads(name)) throw new Error(`${name} does not load on Node ${process.version} after a rebuild`);
}
