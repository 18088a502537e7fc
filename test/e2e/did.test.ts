import { randomUUID } from 'node:crypto';
import { Wallet, hexlify, randomBytes } from 'ethers';
import { Resolver } from 'did-resolver';
import { getResolver } from 'ethr-did-resolver';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, registerUser, type RegisteredUser } from '../helpers/http';
import { waitFor } from '../helpers/processes';
import { bearer, deployAccount, signSlot } from '../helpers/wallet';
import { verifyCredential } from '../helpers/credentials';

describe('assertionMethod keys on did:ethr, resolved by ethr-did-resolver', () => {
  let stack: TestStack;
  let user: RegisteredUser;
  const owner = Wallet.createRandom();
  let account: string;
  beforeAll(async () => {
    stack = await startTestStack(testDatabases()[0]!, { chains: true });
    user = await registerUser(stack);
    account = await deployAccount(stack, user, owner, 'ETHEREUM');
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const prepare = (body: object, u = user) =>
    call(`${stack.apiUrl}/v1/did/keys/assertion/prepare`, { headers: bearer(u), json: body });
  const execute = (items: object[], u = user) =>
    call(`${stack.apiUrl}/v1/did/keys/assertion`, {
      headers: { ...bearer(u), 'idempotency-key': randomUUID() },
      json: { signing: { items } },
    });
  const resolver = () => {
    const chain = stack.chains[0]!;
    return new Resolver(
      getResolver({
        networks: [{ name: 'local', chainId: chain.chainId, rpcUrl: chain.rpcUrl, registry: chain.didRegistry }],
      }),
    );
  };

  it('binds the KYC credential to the holder once deployed: a new one names their did:ethr, the bearer one is revoked', async () => {
    const did = `did:ethr:0x7a69:${account}`;
    const items = (await call(`${stack.apiUrl}/v1/did/vcs`, { headers: bearer(user) })).body.items as Array<{
      vcId: string;
      type: string;
      status: string;
      holder: string | null;
      revocationReason: string | null;
    }>;
    expect(items.map((i) => [i.type, i.status, i.holder, i.revocationReason])).toEqual([
      ['KycCredential', 'active', did, null],
      ['KycCredential', 'revoked', null, 'superseded'],
    ]);
    const [bound, bearerVc] = await Promise.all(
      items.map(async (i) => (await call(`${stack.apiUrl}/v1/did/vcs/${i.vcId}`, { headers: bearer(user) })).body),
    );
    expect(bound.credentialSubject).toEqual({ ...bearerVc.credentialSubject, id: did });
    await expect(verifyCredential(stack.apiUrl, bound)).resolves.toMatchObject({
      verified: true,
      status: { revoked: false },
    });
    await expect(verifyCredential(stack.apiUrl, bearerVc)).resolves.toMatchObject({
      verified: false,
      status: { revoked: true },
    });
    // The holder is a DID anyone resolves: the account's own did:ethr document.
    const { didDocument } = await resolver().resolve(did);
    expect(didDocument!.id).toBe(did);
    // Told once each, after the deployment.
    const kinds = await stack.orm.em
      .fork()
      .getConnection()
      .execute<Array<{ type: string }>>(
        'select type from events where user_id = ? and type in (?, ?, ?) order by position',
        [user.userId, 'deploy.completed', 'credential.issued', 'credential.revoked'],
      );
    expect(kinds.map((k: { type: string }) => k.type)).toEqual([
      'credential.issued',
      'deploy.completed',
      'credential.issued',
      'credential.revoked',
    ]);
  });

  it('adds a secp256k1 key that the resolver lists under assertionMethod', async () => {
    const key = Wallet.createRandom().signingKey;
    const prepared = await prepare({ keyType: 'EcdsaSecp256k1VerificationKey2019', publicKey: key.publicKey });
    expect(prepared.status).toBe(200);
    const slot = prepared.body.items[0];
    expect(slot.parameter).toMatchObject({
      algorithm: 'eip712-erc4337-userop-v1',
      keyUri: `key:secp256k1:${owner.address}`,
    });
    const did = slot.parameter.domain.did as string;
    expect(did).toBe(`did:ethr:0x7a69:${account}`);
    const accepted = await execute([signSlot(slot, owner)]);
    expect(accepted.status).toBe(202);
    const location = accepted.headers.get('location')!;
    await waitFor(
      async () => (await call(`${stack.apiUrl}${location}`, { headers: bearer(user) })).body.status === 'completed',
      60_000,
      'DID key',
    );

    const { didDocument } = await resolver().resolve(did);
    const methods = didDocument!.verificationMethod ?? [];
    const added = methods.find(
      (m) => (m as { publicKeyHex?: string }).publicKeyHex === key.compressedPublicKey.slice(2),
    );
    expect(added).toBeDefined();
    expect(didDocument!.assertionMethod).toContain(added!.id);
  });

  it('refuses invalid keys, a signature by another key, and accounts that are not deployed', async () => {
    expect(
      (
        await prepare({
          keyType: 'EcdsaSecp256k1VerificationKey2019',
          publicKey: hexlify(randomBytes(33)).replace(/^0x../, '0x05'),
        })
      ).status,
    ).toBe(422);
    expect((await prepare({ keyType: 'Ed25519VerificationKey2018', publicKey: hexlify(randomBytes(31)) })).status).toBe(
      422,
    );
    expect((await prepare({ keyType: 'RsaVerificationKey2018', publicKey: '0x01' })).status).toBe(400);
    // Found by Schemathesis: hex of an odd length was a 500.
    expect((await prepare({ keyType: 'EcdsaSecp256k1VerificationKey2019', publicKey: '0x0' })).status).toBe(422);
    const slot = (await prepare({ keyType: 'Ed25519VerificationKey2018', publicKey: hexlify(randomBytes(32)) })).body
      .items[0];
    const forged = await execute([signSlot(slot, Wallet.createRandom())]);
    expect(forged.status).toBe(422);
    expect(forged.body.type).toBe('/problems/invalid-signature');
    const stranger = await registerUser(stack);
    expect((await execute([signSlot(slot, owner)], stranger)).status).toBe(404);
    expect(
      (await prepare({ keyType: 'Ed25519VerificationKey2018', publicKey: hexlify(randomBytes(32)) }, stranger)).status,
    ).toBe(409);
  });

  it('keeps the kinds of signed operations apart: a DID slot cannot be executed as a deployment', async () => {
    const slot = (await prepare({ keyType: 'Ed25519VerificationKey2018', publicKey: hexlify(randomBytes(32)) })).body
      .items[0];
    const asDeploy = await call(`${stack.apiUrl}/v1/wallet/networks/ETHEREUM/deploy`, {
      headers: { ...bearer(user), 'idempotency-key': randomUUID() },
      json: { signing: { items: [signSlot(slot, owner)] } },
    });
    expect(asDeploy.status).toBe(404);
    // The slot is still the DID operation's to execute.
    expect((await execute([signSlot(slot, owner)])).status).toBe(202);
  });
});
