import { randomBytes, randomUUID } from 'node:crypto';
import { Wallet, type BaseWallet } from 'ethers';
import { SoftwarePasskey } from '@wallet-service/client';
import {
  AccountBackupEntity,
  DeviceEntity,
  PasskeyEntity,
  RecoveryEntity,
  SmartAccountEntity,
  UserEntity,
  UserPinEntity,
} from '../../db/entities';
import { MERKLE_ROOT_DOMAIN, MERKLE_ROOT_TYPES } from '../../integrations/evm/user-operation';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import {
  backupBody,
  call,
  idCardForm,
  newPerson,
  registerUser,
  type HttpResult,
  type RegisteredUser,
} from '../helpers/http';
import { encryptPin } from '../helpers/pin';
import { verifyEmail } from '../helpers/mail';
import { enrolPasskey } from '../helpers/passkeys';
import { signInWithIdCard, verifyOnNewDevice } from '../helpers/sign-in';
import { bearer, deployAccount, signSlot } from '../helpers/wallet';
import type { RouteSpec } from '../../api/http/route-table';

/**
 * Routes an access token alone may use to change something, each with why that is no takeover. Every other Bearer
 * route that changes anything must refuse a request that carries nothing but a victim's token.
 */
const EXEMPT: Record<string, string> = {
  signOut: "signs the token's own device out: the owner signs in again",
  passkeyRegistrationOptions: 'creation options only: the enrolment that uses them needs the PIN or a passkey',
  passkeyApprovalOptions: "a challenge for one of the person's own passkeys to sign: it approves nothing by itself",
  prepareAccountUpgrade: 'prepares an operation only the owner key can sign: nothing changes until then',
  prepareTransferKeyChange: 'prepares an operation only the owner key can sign: nothing changes until then',
  prepareSwap: 'prepares a swap only the owner key can sign: nothing moves until then',
  prepareKeyRotation: 'prepares an operation only the current owner key can sign: nothing changes until then',
  prepareAssertionKey: 'prepares an operation only the owner key can sign: nothing changes until then',
  prepareRecoveryCancel: 'prepares a cancellation only the owner key can sign: nothing changes until then',
  prepareCryptoTransfer: 'prices a transfer and says what it needs: nothing is recorded',
  addRecipient: 'a new recipient waits out its cooling-off, and a transfer to it still takes the PIN',
  removeRecipient: 'forgets a recipient, which then waits out a new cooling-off: nothing moves',
  ownershipChallenge: 'a message for the key of an address to sign: nothing changes',
  proveOwnership: 'records that a key the caller holds controls an address; a transfer to it still takes the PIN',
  addOtherAsset: "the person's own list of assets held elsewhere: nothing moves",
  removeOtherAsset: "the person's own list of assets held elsewhere: nothing moves",
  verifySecurities: 'reads the securities accounts at the broker',
  authorizeCexAccount: "starts connecting a read-only view of the person's exchange account",
  connectCexAccount: "connects a read-only view of the person's exchange account",
  removeCexAccount:
    "forgets a read-only view of the person's exchange account (and the key kept for it): nothing moves",
  openNetworkWallet:
    "opens the person's custodial Solana wallet: its key stays with the service, sending takes the PIN",
  exchangeQuote: 'a quote: nothing is recorded',
  submitKycBasicInfo:
    'records KYC details checked against the identity verified at registration (name-mismatch otherwise): no credential, channel, owner or money',
  sendWon:
    "the interface's own send-won takes no proof field; it sends 1 KRW to an account the bank says is in the person's own verified name",
  startBankConsent:
    "starts a consent the person completes at the bank, with the bank's own authentication (a certificate, their phone): the token alone completes nothing, and a consent lets money in from the person's own accounts, never out",
  executeCharge:
    "the interface's own charge/execute takes no proof field; it pulls money in from the person's own connected account, never out",
};

/** Answers that mean the request never reached a decision: a walk that gets one would prove nothing. */
const NOT_REACHED = [400, 401, 404, 405, 413, 415];
/** Routes whose every victim answers 404 because the thief cannot name anything of the victim's there. */
const NOT_FOUND_IS_THE_DEFENCE = new Set([
  'confirmEmail',
  'retryKeyRotationNetwork',
  'executeRecoveryCancel',
  'proveIdentityCheckWithIdCard',
  'confirmWon',
]);

/**
 * Issue 36: a stolen access token must gain nothing lasting. Every route of the OpenAPI document that a Bearer token
 * can call to change something is called with a victim's token and nothing the token does not carry (no PIN, no
 * passkey of the victim's, no identity verification of the victim, no owner key: the thief brings only what is the
 * thief's own): a victim fresh from registration, and one with a PIN, a passkey, an email, an upgraded account and a
 * second device. Any 2xx fails the test unless the route is in EXEMPT, with its reason. Then the takeover chain is
 * checked end to end: the fresh victim has no PIN, passkey, email, owner key or recovery of the thief's, and nothing
 * of the other changed.
 */
describe('a stolen access token alone, on every route of the document', () => {
  let stack: TestStack;
  let fresh: RegisteredUser;
  let owned: RegisteredUser & {
    otherDeviceId: string;
    passkeyId: string;
    account: string;
    owner: BaseWallet;
    pinHash: string;
  };
  const thief = { key: Wallet.createRandom(), passkey: new SoftwarePasskey(), person: newPerson() };
  const thiefEmail = `thief.${randomUUID().slice(0, 8)}@example.com`;
  const ownerEmail = `victim.${randomUUID().slice(0, 8)}@example.com`;

  beforeAll(async () => {
    stack = await startTestStack(testDatabases().at(-1)!, { chains: true });
    fresh = await registerUser(stack, undefined, { pin: null });
    const victim = await registerUser(stack);
    await verifyEmail(stack, victim, ownerEmail);
    const owner = Wallet.createRandom();
    const account = await deployAccount(stack, victim, owner, 'ETHEREUM');
    const upgrade = await call(`${stack.apiUrl}/v1/wallet/networks/ETHEREUM/upgrade/prepare`, {
      method: 'POST',
      headers: bearer(victim),
    });
    const upgraded = await call(`${stack.apiUrl}/v1/wallet/networks/ETHEREUM/upgrade`, {
      headers: { ...bearer(victim), 'idempotency-key': randomUUID() },
      json: {
        signing: {
          items: [
            signSlot(
              upgrade.body.items.find((i: { payload: string }) => i.payload),
              owner,
            ),
          ],
        },
      },
    });
    if (upgraded.status !== 202) throw new Error(`upgrade: ${upgraded.status} ${JSON.stringify(upgraded.body)}`);
    // The passkey after the account's operations (with one, they need its slot too).
    const { passkeyId } = await enrolPasskey(stack, victim, { pastItsHold: true });
    const otherDevice = await signInWithIdCard(stack, victim);
    const { pinHash } = await stack.orm.em.fork().findOneOrFail(UserPinEntity, { userId: victim.userId });
    owned = { ...victim, otherDeviceId: otherDevice.deviceId, passkeyId, account, owner, pinHash };
  });
  afterAll(async () => stack?.stop());

  /** Whether the last request's owner-signed operation could not even be prepared with the victim's token. */
  let nothingPrepared = false;
  /** What the thief sends to each route: complete and well-formed, with nothing the token does not carry. */
  const request = async (
    route: RouteSpec,
    victim: RegisteredUser,
  ): Promise<{ path: Record<string, string>; json?: unknown; form?: FormData }> => {
    nothingPrepared = false;
    const send = (path: string, json?: unknown) =>
      call(`${stack.apiUrl}${path}`, {
        method: 'POST',
        headers: { ...bearer(victim), 'idempotency-key': randomUUID() },
        ...(json ? { json } : {}),
      });
    /** The slot of a prepare, signed with the thief's own key (the owner key is the one thing they lack). */
    const thiefSigned = async (prepared: HttpResult) => {
      const slot = prepared.body?.items?.find((i: { payload?: string }) => i.payload);
      // The prepare was refused (no account, another owner, a first owner without the step-up): that is the defence,
      // and the execute can only be sent a slot that was never prepared.
      if (!slot) nothingPrepared = true;
      return slot
        ? signSlot(slot, thief.key)
        : {
            id: `op_${randomUUID()}`,
            parameter: { algorithm: 'eip712-erc4337-userop-v1' },
            signature: { authResponse: { signature: `0x${randomBytes(65).toString('hex')}` } },
          };
    };
    const pin = (request: Record<string, string | null>) => encryptPin(stack, '000000', { request }); // a guess
    const v = victim as typeof owned;
    switch (route.operationId) {
      case 'startIdentityCheck': {
        const own = await verifyOnNewDevice(stack, thief.person);
        return { path: {}, json: { passToken: own.passToken, request: { action: 'pin_set' } } };
      }
      case 'proveIdentityCheckWithIdCard':
        return { path: { identityCheckId: `sgn_${randomBytes(12).toString('hex')}` }, form: idCardForm(victim.person) };
      case 'revokeDevice':
        return { path: { deviceId: v.otherDeviceId ?? randomUUID() }, json: {} };
      case 'releaseDeviceHold':
        return { path: { deviceId: v.otherDeviceId ?? victim.deviceId }, json: {} };
      case 'replaceWalletBackup':
        return { path: {}, json: backupBody() };
      case 'executeAccountUpgrade':
        return {
          path: { networkId: 'ETHEREUM' },
          json: { signing: { items: [await thiefSigned(await send('/v1/wallet/networks/ETHEREUM/upgrade/prepare'))] } },
        };
      case 'startRecovery':
        return { path: {}, json: { newOwnerAddress: thief.key.address } };
      case 'executeRecoveryCancel':
        return {
          path: { recoveryId: `rcv_${randomUUID()}`, networkId: 'ETHEREUM' },
          json: { signing: { items: [await thiefSigned({} as HttpResult)] } },
        };
      case 'requestEmailVerification':
        return { path: {}, json: { email: thiefEmail } };
      case 'confirmEmail':
        return { path: {}, json: { verificationId: `ev_${randomUUID()}`, code: '123456' } };
      case 'renewKyc': {
        const form = idCardForm(victim.person); // even a photo of the victim's own card
        return { path: {}, form };
      }
      case 'closeAccount':
        return { path: {}, json: { confirm: 'CLOSE' } };
      case 'registerPasskey': {
        const options = await send('/v1/auth/passkeys/registration/options');
        return {
          path: {},
          json: { challengeId: options.body.challengeId, credential: thief.passkey.create(options.body.publicKey) },
        };
      }
      case 'removePasskey':
        return { path: { passkeyId: v.passkeyId ?? `pk_${randomUUID()}` }, json: {} };
      case 'prepareDeploy':
        return { path: { networkId: 'POLYGON' }, json: { ownerAddress: thief.key.address } };
      case 'executeDeploy':
        return {
          path: { networkId: 'POLYGON' },
          json: {
            signing: {
              items: [
                await thiefSigned(
                  await send('/v1/wallet/networks/POLYGON/deploy/prepare', { ownerAddress: thief.key.address }),
                ),
              ],
            },
          },
        };
      case 'executeTransferKeyChange':
        return {
          path: { networkId: 'ETHEREUM' },
          json: {
            signing: {
              items: [
                await thiefSigned(
                  await send('/v1/wallet/networks/ETHEREUM/transfer-key/prepare', { action: 'revoke' }),
                ),
              ],
            },
          },
        };
      case 'executeSwap': {
        // The victim's own quote and prepared swap, signed by the thief's key: the account's owner key is not theirs.
        const quote = await send('/v1/exchange/quote', {
          source: 'ETH',
          target: 'USDT',
          networkId: 'ETHEREUM',
          direction: 'exactInput',
          amount: '0.01',
        });
        const prepared = await send('/v1/exchange/swaps/prepare', {
          quoteId: quote.body?.quoteId ?? `q1.${'A'.repeat(40)}`,
        });
        return { path: {}, json: { signing: { items: [await thiefSigned(prepared)] } } };
      }
      case 'executeKeyRotation': {
        const prepared = await send('/v1/wallet/keys/rotate/prepare', { newOwnerAddress: thief.key.address });
        const slot = prepared.body?.items?.[0];
        if (!slot) nothingPrepared = true;
        const signature = slot
          ? await thief.key.signTypedData(MERKLE_ROOT_DOMAIN, MERKLE_ROOT_TYPES, { root: slot.parameter.domain.root })
          : `0x${randomBytes(65).toString('hex')}`;
        return {
          path: {},
          json: {
            signing: {
              items: [
                {
                  id: slot?.id ?? `rot_${randomUUID()}`,
                  parameter: slot?.parameter ?? { algorithm: 'eip712-erc4337-merkleroot-v1' },
                  signature: { authResponse: { signature } },
                },
              ],
            },
          },
        };
      }
      case 'retryKeyRotationNetwork':
        return { path: { taskId: `rot_${randomUUID()}`, networkId: 'ETHEREUM' } };
      case 'executeAssertionKey':
        return {
          path: {},
          json: {
            signing: {
              items: [
                await thiefSigned(
                  await send('/v1/did/keys/assertion/prepare', {
                    keyType: 'EcdsaSecp256k1VerificationKey2019',
                    publicKey: thief.key.signingKey.publicKey,
                  }),
                ),
              ],
            },
          },
        };
      case 'confirmWon':
        return { path: {}, json: { verification_id: `bv_${randomUUID()}`, code: '1234' } };
      case 'setPin':
        return { path: {}, json: { pin: await encryptPin(stack, '630517') } };
      case 'changePin': {
        const newPin = await encryptPin(stack, '630517');
        const digest = Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(newPin))).toString(
          'base64url',
        );
        return {
          path: {},
          json: { current_pin: await pin({ action: 'pin_change', new_pin_sha256: digest }), new_pin: newPin },
        };
      }
      case 'resetPin':
        return { path: {}, json: { new_pin: await encryptPin(stack, '630517') } };
      case 'createPayout': {
        // The victim's won to an account: only one of the victim's own verified accounts takes it, and not on a token.
        const fields = { bank_account_id: `ba_${randomUUID()}`, amount: '10000' };
        return { path: {}, json: { ...fields, currency: 'KRW', pin: await pin({ action: 'payout', ...fields }) } };
      }
      case 'executeCryptoTransfer': {
        const fields = { to_address: thief.key.address, network: 'ETHEREUM', token: 'ETH', amount: '0.1' };
        return {
          path: {},
          json: { ...fields, pin: await pin({ action: 'transfer', ...fields, idempotency_key: null }) },
        };
      }
      default:
        if (EXEMPT[route.operationId]) return { path: {} };
        throw new Error(
          `${route.method.toUpperCase()} ${route.path} (${route.operationId}): add the request a thief would send, or exempt it with its reason`,
        );
    }
  };

  it('refuses every Bearer route that changes something to a request with nothing but the victim’s token', async () => {
    const routes = stack.app.routes.filter((r) => r.auth === 'bearer' && r.method !== 'get');
    expect(routes.length).toBeGreaterThanOrEqual(45);
    const answered: string[] = [];
    /** Routes that did what the thief asked, and refusals that never reached a decision (the walk proved nothing). */
    const taken: string[] = [];
    const unreached: string[] = [];
    for (const route of routes) {
      if (EXEMPT[route.operationId]) continue;
      for (const [who, victim] of [
        ['fresh', fresh],
        ['owned', owned],
      ] as const) {
        const { path, json, form } = await request(route, victim);
        const url = route.path.replace(/:(\w+)/g, (_m, name: string) => encodeURIComponent(path[name] ?? 'ETHEREUM'));
        const answer = await call(`${stack.apiUrl}${url}`, {
          method: route.method.toUpperCase(),
          headers: { ...bearer(victim), 'idempotency-key': randomUUID() },
          ...(json !== undefined ? { json } : {}),
          ...(form ? { form } : {}),
        });
        const what = `${route.operationId} (${who} victim): ${answer.status} ${answer.body?.type ?? ''}`;
        answered.push(what);
        if (answer.status < 300) taken.push(what);
        // The refusal is a decision (a step-up, a hold, a wrong proof, a conflict), not a malformed request.
        else if (
          NOT_REACHED.includes(answer.status) &&
          !NOT_FOUND_IS_THE_DEFENCE.has(route.operationId) &&
          !(nothingPrepared && answer.status === 404)
        )
          unreached.push(`${what} ${answer.body?.detail ?? ''}`);
      }
    }
    expect({ taken, unreached }).toEqual({ taken: [], unreached: [] });
    // Every route the document has is either walked or exempt with its reason.
    for (const operationId of Object.keys(EXEMPT))
      expect([operationId, routes.some((r) => r.operationId === operationId)]).toEqual([operationId, true]);
    expect(answered.length).toBe(2 * routes.filter((r) => !EXEMPT[r.operationId]).length);
  });

  it('leaves the takeover chain broken: the thief ends with no PIN, passkey, email, owner key or recovery of their own', async () => {
    const em = stack.orm.em.fork();
    // The fresh victim: nothing of the thief's.
    expect(await em.count(UserPinEntity, { userId: fresh.userId })).toBe(0);
    expect(await em.count(PasskeyEntity, { userId: fresh.userId })).toBe(0);
    expect((await em.findOneOrFail(UserEntity, { id: fresh.userId })).emailSealed).toBeNull();
    expect(await em.count(SmartAccountEntity, { userId: fresh.userId })).toBe(0);
    expect(await em.count(RecoveryEntity, { userId: fresh.userId })).toBe(0);
    // The owned victim: the same PIN (it still approves), passkey, email, devices, backup, owner, and no recovery.
    const profile = await call(`${stack.apiUrl}/v1/account/profile`, { headers: bearer(owned) });
    expect(profile.body).toMatchObject({ status: 'active', email: ownerEmail, twoFactorMethods: ['passkey'] });
    expect((await em.find(PasskeyEntity, { userId: owned.userId })).map((p) => p.passkeyId)).toEqual([owned.passkeyId]);
    expect(await em.count(DeviceEntity, { userId: owned.userId, revokedAt: null })).toBe(2);
    expect(await em.count(AccountBackupEntity, { userId: owned.userId })).toBe(1);
    expect(await em.count(RecoveryEntity, { userId: owned.userId })).toBe(0);
    const accounts = await em.find(SmartAccountEntity, { userId: owned.userId });
    expect(accounts.map((a) => a.ownerAddress)).toEqual([owned.owner.address]);
    expect((await em.findOneOrFail(UserPinEntity, { userId: owned.userId })).pinHash).toBe(owned.pinHash);
  });
});
