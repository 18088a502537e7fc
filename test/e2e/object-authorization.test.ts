import { randomUUID } from 'node:crypto';
import { parseEther, Wallet } from 'ethers';
import { generateKeyPairSigner } from '@solana/kit';
import { SignedOperationEntity } from '../../db/entities';
import { MERKLE_ROOT_DOMAIN, MERKLE_ROOT_TYPES } from '../../integrations/evm/user-operation';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, idCardForm, registerUser, type RegisteredUser } from '../helpers/http';
import { callApi, connectBankAccount, openBankAccount } from '../helpers/bank';
import { transferPin } from '../helpers/pin';
import { waitFor } from '../helpers/processes';
import { bearer, deployAccount, signSlot } from '../helpers/wallet';
import { enrolPasskey } from '../helpers/passkeys';
import { startIdentityCheck, verifiedIdentityCheck } from '../helpers/identity-checks';
import { encryptPin } from '../helpers/pin';
import { stepUpRequestOf } from '../../api/http/step-up';

/** Path parameters that name a network, not something a user owns. */
const NOT_OWNED = new Set(['networkId']);

/**
 * Object-level authorization, driven by the route table: every Bearer route that takes the id of something a user
 * owns is called with the owner's real id by another user (404, nothing revealed) and with no token (401). A new
 * route with such an id fails this test until it is added here.
 */
describe('object-level authorization of every route that takes an id', () => {
  let stack: TestStack;
  let owner: RegisteredUser;
  let stranger: RegisteredUser;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    stack = await startTestStack(testDatabases().at(-1)!, { chains: true, solana: true });
    [owner, stranger] = [await registerUser(stack, undefined, { pin: '582046' }), await registerUser(stack)];

    // One of each thing the owner can have, made through the API.
    const account = await openBankAccount(stack, owner.person, 1_000_000);
    const { bank_account_id: bankAccountId } = await connectBankAccount(stack, owner, account);
    ids.chargeId = (
      await callApi(stack, '/api/v1/charge/execute', owner, {
        json: { source: account.bankCode, amount: '1000', currency: 'KRW' },
      })
    ).body.charge_id;
    await waitFor(
      async () => (await callApi(stack, `/api/v1/charge/${ids.chargeId}`, owner)).body.status === 'completed',
      60_000,
      'charge completed',
    );
    ids.payoutId = (
      await callApi(stack, '/api/v1/payouts', owner, {
        json: {
          bank_account_id: bankAccountId,
          amount: '500',
          currency: 'KRW',
          pin: await encryptPin(stack, '582046', {
            request: { action: 'payout', amount: '500', bank_account_id: bankAccountId },
          }),
        },
      })
    ).body.payout_id;
    ids.assetId = (
      await callApi(stack, '/api/v1/other-assets', owner, { json: { category: 'cash', name: '비상금', value: 100000 } })
    ).body.assetId;
    ids.vcId = (await call(`${stack.apiUrl}/v1/did/vcs`, { headers: bearer(owner) })).body.items[0].vcId;
    const key = Wallet.createRandom();
    const ownerAccount = await deployAccount(stack, owner, key, 'ETHEREUM');
    // A swap prepared from one of the owner's quotes (the account holds a little ETH to swap).
    await (await stack.chains[0]!.funder.sendTransaction({ to: ownerAccount, value: parseEther('0.1') })).wait();
    const swapQuote = await call(`${stack.apiUrl}/v1/exchange/quote`, {
      headers: bearer(owner),
      json: { source: 'ETH', target: 'USDT', networkId: 'ETHEREUM', direction: 'exactInput', amount: '0.01' },
    });
    ids.swapId = (
      await call(`${stack.apiUrl}/v1/exchange/swaps/prepare`, {
        headers: bearer(owner),
        json: { quoteId: swapQuote.body.quoteId },
      })
    ).body.swapId;
    ids.jobId = (
      await stack.orm.em.fork().findOneOrFail(SignedOperationEntity, { userId: owner.userId, kind: 'deploy' })
    ).operationId;
    // An upgrade of the account for recovery, and a recovery (it schedules on the upgraded account).
    const upgrade = (
      await call(`${stack.apiUrl}/v1/wallet/networks/ETHEREUM/upgrade/prepare`, {
        method: 'POST',
        headers: bearer(owner),
      })
    ).body.items[0];
    ids.accountOpId = (
      await call(`${stack.apiUrl}/v1/wallet/networks/ETHEREUM/upgrade`, {
        headers: { ...bearer(owner), 'idempotency-key': randomUUID() },
        json: { signing: { items: [signSlot(upgrade, key)] } },
      })
    ).body.opId;
    const recoveryTarget = Wallet.createRandom().address;
    ids.recoveryId = (
      await call(`${stack.apiUrl}/v1/account/recovery`, {
        headers: { ...bearer(owner), 'idempotency-key': randomUUID() },
        json: {
          newOwnerAddress: recoveryTarget,
          identityCheckId: await verifiedIdentityCheck(stack, owner, {
            action: 'recovery_start',
            new_owner_address: recoveryTarget,
          }),
        },
      })
    ).body.recoveryId;
    ids.opId = (
      await call(`${stack.apiUrl}/v1/did/keys/assertion/prepare`, {
        headers: bearer(owner),
        json: { keyType: 'Ed25519VerificationKey2018', publicKey: `0x${'11'.repeat(32)}` },
      })
    ).body.items[0].id;
    const [rotation] = (
      await call(`${stack.apiUrl}/v1/wallet/keys/rotate/prepare`, {
        headers: bearer(owner),
        json: { newOwnerAddress: Wallet.createRandom().address },
      })
    ).body.items;
    const rootSignature = await key.signTypedData(MERKLE_ROOT_DOMAIN, MERKLE_ROOT_TYPES, {
      root: rotation.parameter.domain.root,
    });
    await call(`${stack.apiUrl}/v1/wallet/keys/rotate`, {
      headers: { ...bearer(owner), 'idempotency-key': randomUUID() },
      json: {
        signing: {
          items: [
            {
              id: rotation.id,
              parameter: rotation.parameter,
              signature: { authResponse: { signature: rootSignature } },
            },
          ],
        },
      },
    });
    ids.taskId = rotation.id;
    // The rotation's operation on ETHEREUM may still be on its way: another owner-signed operation of the account is
    // refused 409 operation-in-flight until it lands, and an app asks again after Retry-After.
    const prepareKeyOp = () =>
      call(`${stack.apiUrl}/v1/wallet/networks/ETHEREUM/transfer-key/prepare`, {
        headers: bearer(owner),
        json: { action: 'set-caps', caps: { ETH: '1' } },
      });
    let keyOp = await prepareKeyOp();
    for (let tries = 0; keyOp.body?.type === '/problems/operation-in-flight' && tries < 12; tries += 1) {
      await new Promise((r) => setTimeout(r, Number(keyOp.headers.get('retry-after') ?? 1) * 1000));
      keyOp = await prepareKeyOp();
    }
    expect({ status: keyOp.status, type: keyOp.body?.type }).toEqual({ status: 200, type: undefined });
    ids.keyOpId = keyOp.body.items[0].id;
    ids.address = (
      await callApi(stack, '/api/v1/transfer/address-book', owner, {
        json: { network: 'ETHEREUM', address: Wallet.createRandom().address },
      })
    ).body.address;
    ids.passkeyId = (await enrolPasskey(stack, owner, { pin: '582046' })).passkeyId;
    await callApi(stack, '/v1/wallet/networks/SOLANA/wallet', owner, { method: 'POST' });
    ids.transferId = (
      await callApi(stack, '/api/v1/transfer/crypto/execute', owner, {
        json: await (async () => {
          const fields = {
            to_address: (await generateKeyPairSigner()).address,
            network: 'SOLANA',
            token: 'SOL',
            amount: '0.01',
          };
          return { ...fields, pin: await transferPin(stack, '582046', fields) };
        })(),
      })
    ).body.transfer_id;
    const cexUser = `upbit-${randomUUID().slice(0, 8)}`;
    await call(`${stack.sandboxUrl}/cex/_users`, {
      json: { userId: cexUser, name: owner.person.name, balances: { BTC: '0.1' } },
    });
    const started = await call(`${stack.apiUrl}/v1/asset/cex-accounts/authorize`, {
      headers: bearer(owner),
      json: { redirectUri: 'wallet://cex/callback', loginHint: cexUser },
    });
    const consent = await fetch(started.body.authorizationUrl, { redirect: 'manual' });
    const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;
    ids.cexAccountId = (
      await call(`${stack.apiUrl}/v1/asset/cex-accounts`, {
        headers: bearer(owner),
        json: { state: started.body.state, code },
      })
    ).body.cexAccountId;
    ids.deviceId = owner.deviceId;
    ids.identityCheckId = (
      await startIdentityCheck(stack, owner, { action: 'pin_reset', new_pin_sha256: 'x'.repeat(43) })
    ).body.identityCheckId;
    for (const [name, value] of Object.entries(ids))
      if (!value) throw new Error(`could not create ${name} for the owner`);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('answers another user 404 and no token 401 for each, and the owner 2xx', async () => {
    const routes = stack.app.routes.filter(
      (r) =>
        r.auth === 'bearer' &&
        /:([A-Za-z]+)/.test(r.path) &&
        [...r.path.matchAll(/:([A-Za-z]+)/g)].some(([, name]) => !NOT_OWNED.has(name!)),
    );
    expect(routes.length).toBeGreaterThanOrEqual(9);
    for (const route of routes) {
      const path = route.path.replace(/:([A-Za-z]+)/g, (_m, name: string) => {
        if (NOT_OWNED.has(name)) return 'ETHEREUM';
        if (!ids[name])
          throw new Error(`${route.method.toUpperCase()} ${route.path}: add an owned ${name} to this test`);
        return encodeURIComponent(ids[name]!);
      });
      const send = (user?: RegisteredUser, json: object = {}) =>
        call(`${stack.apiUrl}${path}`, {
          method: route.method.toUpperCase(),
          headers: { ...(user ? bearer(user) : {}), 'idempotency-key': randomUUID() },
          // A form route (an ID-card image) gets a form, so its answer is the route's, not a 415.
          ...(route.multipart && !route.body
            ? { form: idCardForm(owner.person) }
            : route.method !== 'get'
              ? { json }
              : {}),
        });
      const what = `${route.method.toUpperCase()} ${route.path}`;
      expect([what, (await send()).status]).toEqual([what, 401]);
      // A route behind a step-up is sent the stranger's own proof for the very request (their PIN naming the owner's
      // id), so the answer is the route's, not the step-up's; one that takes only a passkey refuses a stranger
      // without one before anything is looked up, the same for any id.
      const policy = route.stepUp && route.stepUp.anyOf.length && !route.stepUp.checkedBy ? route.stepUp : undefined;
      const params = Object.fromEntries(
        [...route.path.matchAll(/:([A-Za-z]+)/g)].map(([, name]) => [
          name!,
          NOT_OWNED.has(name!) ? 'ETHEREUM' : ids[name!]!,
        ]),
      );
      const proof =
        policy && policy.anyOf.some((set) => set.includes('pin'))
          ? {
              [policy.pinField ?? 'pin']: await encryptPin(stack, stranger.pin!, {
                request: stepUpRequestOf(policy, { params, body: {} } as never, { get: () => '' } as never),
              }),
            }
          : {};
      const foreign = await send(stranger, proof);
      if (policy && !Object.keys(proof).length)
        expect([what, foreign.status, foreign.body.type]).toEqual([what, 422, '/problems/step-up-required']);
      else expect([what, foreign.status]).toEqual([what, 404]);
      expect(JSON.stringify(foreign.body)).not.toContain(owner.userId);
      // The owner is served (or told why not, never "not found") - proof the id was real.
      if (route.method !== 'delete') expect([what, (await send(owner)).status === 404]).toEqual([what, false]);
    }
    // The stranger's DELETE changed nothing.
    expect((await callApi(stack, '/api/v1/other-assets', owner)).body.assets).toHaveLength(1);
    expect(
      (await callApi(stack, '/api/v1/transfer/address-book', owner)).body.items.map(
        (e: { address: string }) => e.address,
      ),
    ).toContain(ids.address);
  });
});
