import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { TRP_API_VERSION } from '../../integrations/travel-rule/trp';
import { TrpHeadersSchema } from '../compliance/schemas';
import { conforms } from './validation';

/**
 * The TRP listener: HTTPS with mutual TLS for other VASPs (TRP v3), beside the API's own port. Our certificate is
 * served, a client certificate chaining to the Travel Rule CA is required (the handshake fails without one), and the
 * routes see the peer's certificate (api/compliance/routes.ts), whose pin names the counterpart. Only `/trp/v3/*` is
 * served here; anything else is 404, so the app's other routes are not reachable on this port. Every answer carries
 * our `api-version` and the request's `request-identifier` (when it is one we read), as TRISA's server sets them.
 */
export function serveTravelRuleListener(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  options: { host: string; port: number; tls: { cert: string; key: string; ca: string } },
): Promise<Server> {
  const server = createServer(
    {
      cert: options.tls.cert,
      key: options.tls.key,
      ca: options.tls.ca,
      requestCert: true,
      rejectUnauthorized: true,
      minVersion: 'TLSv1.2',
    },
    (req, res) => {
      stampTrpHeaders(req, res);
      if (!/^\/trp\/v3\//.test(req.url ?? '')) {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not a TRP endpoint\n');
        return;
      }
      handler(req, res);
    },
  );
  server.requestTimeout = 30_000;
  // The peer's certificate is checked at the handshake: no renegotiation may swap it afterwards.
  server.on('secureConnection', (socket: TLSSocket) => socket.disableRenegotiation());
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/** The request-identifier as the TRP routes read it (a longer or stranger value is answered 400 and not echoed). */
const REQUEST_IDENTIFIER = TrpHeadersSchema.properties['request-identifier'];

/**
 * The TRP headers of an answer, set before anything answers: the version we speak, and the transfer the request was
 * about (TRISA's pkg/openvasp `APIChecks` sets both, and its client reads them into the answer's `Info()`).
 */
function stampTrpHeaders(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('api-version', TRP_API_VERSION);
  const identifier = req.headers['request-identifier'];
  if (typeof identifier === 'string' && conforms(REQUEST_IDENTIFIER, identifier, 'header'))
    res.setHeader('request-identifier', identifier);
}

/** Our TRP identity from settings: a certificate, its key and the Travel Rule network's CA are required. */
export function trpIdentity(tls: { cert?: string; key?: string; ca?: string } | undefined): {
  cert: string;
  key: string;
  ca: string;
} {
  if (!tls?.cert || !tls.key || !tls.ca)
    throw new Error(
      "TRAVEL_RULE_PORT needs TRAVEL_RULE_TLS_CERT_FILE, TRAVEL_RULE_TLS_KEY_FILE and TRAVEL_RULE_TLS_CA_FILE (TRP is mutual TLS, with the Travel Rule network's CA)",
    );
  return { cert: tls.cert, key: tls.key, ca: tls.ca };
}
