import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The API reference at /docs: Scalar's renderer (@scalar/api-reference, its standalone browser bundle served from
 * the package at /docs/scalar.js, no CDN: the service may run without internet) reading /openapi.json. The page's
 * Content-Security-Policy keeps every request on this origin (no fonts, scripts or calls elsewhere).
 */
export const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Wallet service API</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,"></head>
<body><div id="app"></div>
<script src="/docs/scalar.js"></script>
<script>Scalar.createApiReference('#app', {
  url: '/openapi.json', withDefaultFonts: false, telemetry: false, showDeveloperTools: 'never', agent: { disabled: true }, mcp: { disabled: true },
});</script>
</body></html>`;

export const DOCS_CSP =
  "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'";

let bundle: Buffer | undefined;
/** Scalar's standalone bundle (4 MB), read once on first use. */
export const scalarBundle = (): Buffer =>
  (bundle ??= readFileSync(join(dirname(require.resolve('@scalar/api-reference')), 'browser', 'standalone.js')));
