// Loaded into Alto's process with --import (dev/alto.ts). Alto's RPC server listens on every interface, hard-coded
// (@pimlico/alto esm/rpc/server.js: fastify.listen({ port, host: "0.0.0.0" })); the embedded stack promises services on
// loopback only, so a listen on every interface is moved to 127.0.0.1 here. Production runs a bundler of its own
// choosing (a provider's URL or a self-hosted one behind its own network rules) and never loads this file.
import net from 'node:net';

const listen = net.Server.prototype.listen;
const EVERY_INTERFACE = new Set(['0.0.0.0', '::', undefined]);

net.Server.prototype.listen = function (...args) {
  const [options] = args;
  if (options && typeof options === 'object' && 'port' in options && EVERY_INTERFACE.has(options.host)) {
    args[0] = { ...options, host: '127.0.0.1' };
  }
  return listen.apply(this, args);
};
