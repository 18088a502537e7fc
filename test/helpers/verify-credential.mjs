// Verifies a W3C verifiable credential with Digital Bazaar's libraries (@digitalbazaar/vc, the eddsa-rdfc-2022
// cryptosuite, did:key resolution): an implementation independent of the service's issuer. They are ES modules, so
// tests run this file as a separate node process.
// stdin: {"credential": {...}, "contexts": {"<url>": <context document>}}; stdout: {"verified": bool, "errors": [..]}
import * as vc from '@digitalbazaar/vc';
import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import { cryptosuite } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import * as Ed25519Multikey from '@digitalbazaar/ed25519-multikey';
import { securityLoader } from '@digitalbazaar/security-document-loader';
import { driver } from '@digitalbazaar/did-method-key';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const { credential, contexts = {} } = JSON.parse(input);

const didKey = driver();
didKey.use({ multibaseMultikeyHeader: 'z6Mk', fromMultibase: Ed25519Multikey.from });
const loader = securityLoader();
loader.setDidResolver(didKey);
for (const [url, document] of Object.entries(contexts)) loader.addStatic(url, document);

const result = await vc.verifyCredential({ credential, suite: new DataIntegrityProof({ cryptosuite }), documentLoader: loader.build() });
const errors = [result.error, ...(result.error?.errors ?? [])].filter(Boolean).map((e) => e.message);
process.stdout.write(JSON.stringify({ verified: result.verified, errors }));
