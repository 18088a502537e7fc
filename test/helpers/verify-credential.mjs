// Verifies a W3C verifiable credential with Digital Bazaar's libraries (@digitalbazaar/vc, the eddsa-rdfc-2022
// cryptosuite, did:key resolution, the Bitstring Status List checker): an implementation independent of the
// service's issuer. They are ES modules, so tests run this file as a separate node process.
// stdin: {"credential": {...}, "contexts": {"<url>": <context document>}}
// stdout: {"verified": bool, "errors": [..], "status": null | {"checked": bool, "revoked": bool, "listUrl": string}}
// A credential with a credentialStatus has its status list fetched over HTTP from the URL it names, as any verifier
// would, and verified (signature, same issuer); a set bit (revoked) fails the verification.
import * as vc from '@digitalbazaar/vc';
import { checkStatus } from '@digitalbazaar/vc-bitstring-status-list';
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
const staticLoader = loader.build();
const documentLoader = async (url) => {
  if (/\/v1\/credentials\/status\/\d+$/.test(url)) {
    const response = await fetch(url, { headers: { accept: 'application/json' } });
    if (!response.ok) throw new Error(`status list ${url} answered ${response.status}`);
    return { contextUrl: null, documentUrl: url, document: await response.json() };
  }
  return staticLoader(url);
};

const suite = new DataIntegrityProof({ cryptosuite });
let status = null;
const strictStatus = async (options) => {
  const result = await checkStatus({ ...options, suite, documentLoader });
  const revoked = (result.results ?? []).some((r) => r.status === true);
  status = {
    checked: result.verified,
    revoked,
    listUrl: result.results?.[0]?.credentialStatus?.statusListCredential ?? null,
  };
  return revoked
    ? { verified: false, error: new Error('the credential is revoked (its status list bit is set)') }
    : result;
};

const result = await vc.verifyCredential({ credential, suite, documentLoader, checkStatus: strictStatus });
const errors = [result.error, ...(result.error?.errors ?? []), result.statusResult?.error]
  .filter(Boolean)
  .map((e) => e.message);
process.stdout.write(JSON.stringify({ verified: result.verified, errors, status }));
