import { randomUUID } from 'node:crypto';
import { Wallet } from 'ethers';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, registerUser, type RegisteredUser } from '../helpers/http';
import { INCLUDED, fundedUser as fundedUserWith } from '../helpers/transfers';
import { callApi } from '../helpers/bank';
import { transferPin, type TransferFields } from '../helpers/pin';
import { bearer } from '../helpers/wallet';
import { SoftwarePasskey, approveSlot } from '@wallet-service/client';
import { enrolPasskey } from '../helpers/passkeys';
import { AddressBookEntryEntity, PasskeyEntity, TransferEntity, UserPinEntity } from '../../db/entities';

const COOLING_OFF_SECONDS = 4;
const HOLD_SECONDS = 3600;
const PIN = '482915';

/**
 * The spending policy's approval rules: a recipient not in the address book (or still cooling off) and a transfer
 * above the passkey threshold need a passkey approval bound to that very transfer. USDT is 1,400 won in the sandbox
 * price feed: the threshold 100,000 won lies between 70 USDT (98,000) and 80 USDT (112,000).
 */
describe.each(testDatabases())(
  'transfer approvals on $name: address book with cooling-off, passkey above a threshold',
  (database) => {
    let stack: TestStack;
    beforeAll(async () => {
      stack = await startTestStack(database, {
        chains: true,
        env: {
          ADDRESS_COOLING_OFF_SECONDS: String(COOLING_OFF_SECONDS),
          TRANSFER_PASSKEY_ABOVE_KRW: '100000',
          NEW_PASSKEY_HOLD_SECONDS: String(HOLD_SECONDS),
        },
      });
    });
    afterAll(async () => {
      await stack?.stop();
    });

    const fundedUser = async (): Promise<RegisteredUser> => (await fundedUserWith(stack, PIN)).user;
    /** Lets a passkey's hold pass, as if it had been added HOLD_SECONDS and a minute ago. */
    const ageOut = (passkeyId: string) =>
      stack.orm.em
        .fork()
        .nativeUpdate(PasskeyEntity, { passkeyId }, { createdAt: new Date(Date.now() - (HOLD_SECONDS + 60) * 1000) });
    /** A passkey the user has had for longer than its hold (NEW_PASSKEY_HOLD_SECONDS). */
    const addPasskey = async (user: RegisteredUser): Promise<SoftwarePasskey> => {
      const { passkey, passkeyId } = await enrolPasskey(stack, user, { pin: PIN });
      await ageOut(passkeyId);
      return passkey;
    };
    const fields = (to: string, amount: string): TransferFields => ({
      to_address: to,
      network: 'ETHEREUM',
      token: 'USDT',
      amount,
    });
    const prepare = (user: RegisteredUser, f: TransferFields, key: string) =>
      callApi(stack, '/api/v1/transfer/crypto/prepare', user, { json: f, key });
    const execute = async (user: RegisteredUser, f: TransferFields, key: string, items?: object[]) =>
      callApi(stack, '/api/v1/transfer/crypto/execute', user, {
        json: { ...f, pin: await transferPin(stack, PIN, f, key), ...(items ? { signing: { items } } : {}) },
        key,
      });
    const addressBook = async (user: RegisteredUser) =>
      (await callApi(stack, '/api/v1/transfer/address-book', user)).body.items;
    const transfersOf = (user: RegisteredUser) => stack.orm.em.fork().count(TransferEntity, { userId: user.userId });
    const failedPins = async (user: RegisteredUser) =>
      (await stack.orm.em.fork().findOneOrFail(UserPinEntity, { userId: user.userId })).failedAttempts;

    it('refuses a new recipient until its cooling-off has passed, without spending a PIN attempt, then sends', async () => {
      const user = await fundedUser();
      const to = Wallet.createRandom().address;
      const refused = await execute(user, fields(to, '10'), randomUUID());
      expect([refused.status, refused.body.type, refused.body.rule]).toEqual([
        422,
        '/problems/recipient-cooling-off',
        'new-recipient',
      ]);
      expect(refused.body).toMatchObject({
        reasons: ['new-recipient'],
        passkeyRegistered: false,
        network: 'ETHEREUM',
        address: to,
      });
      expect(refused.body.detail).toContain('POST /api/v1/transfer/address-book');
      expect(await transfersOf(user)).toBe(0);
      expect(await failedPins(user)).toBe(0);

      const added = await callApi(stack, '/api/v1/transfer/address-book', user, {
        json: { network: 'ETHEREUM', address: to.toLowerCase() },
      });
      expect(added.status).toBe(201);
      expect(added.body).toMatchObject({
        network: 'ETHEREUM',
        address: to,
        status: 'cooling_off',
        approved_by: 'cooling-off',
      });
      expect(new Date(added.body.usable_from).getTime() - new Date(added.body.added_at).getTime()).toBe(
        COOLING_OFF_SECONDS * 1000,
      );
      expect(
        (await callApi(stack, '/api/v1/transfer/address-book', user, { json: { network: 'ETHEREUM', address: to } }))
          .status,
      ).toBe(200);

      const waiting = await execute(user, fields(to, '10'), randomUUID());
      expect([waiting.status, waiting.body.type, waiting.body.usableFrom]).toEqual([
        422,
        '/problems/recipient-cooling-off',
        added.body.usable_from,
      ]);
      await new Promise((r) => setTimeout(r, COOLING_OFF_SECONDS * 1000 + 200));
      const sent = await execute(user, fields(to, '10'), randomUUID());
      expect([sent.status, sent.body.status]).toEqual([200, expect.stringMatching(INCLUDED)]);
      expect(await addressBook(user)).toEqual([
        expect.objectContaining({ address: to, status: 'trusted', approved_by: 'cooling-off' }),
      ]);

      // Removed, the recipient must wait again.
      const removed = await call(`${stack.apiUrl}/api/v1/transfer/address-book/ETHEREUM/${to}`, {
        method: 'DELETE',
        headers: bearer(user),
      });
      expect(removed.status).toBe(204);
      expect((await execute(user, fields(to, '10'), randomUUID())).body.type).toBe('/problems/recipient-cooling-off');
      expect(
        (
          await call(`${stack.apiUrl}/api/v1/transfer/address-book/ETHEREUM/${to}`, {
            method: 'DELETE',
            headers: bearer(user),
          })
        ).status,
      ).toBe(404);
    });

    it('validates address-book input', async () => {
      const user = await registerUser(stack);
      const bad = async (json: object) =>
        (await callApi(stack, '/api/v1/transfer/address-book', user, { json })).status;
      expect(await bad({ network: 'ETHEREUM', address: '0x123' })).toBe(422);
      expect(await bad({ network: 'ETHEREUM', address: '0x000000000000000000000000000000000000DeaD' })).toBe(422); // bad checksum
      expect(await bad({ network: 'BITCOIN', address: '0x000000000000000000000000000000000000dEaD' })).toBe(400);
      expect(
        await bad({ network: 'ETHEREUM', address: '0x000000000000000000000000000000000000dEaD', label: 'x' }),
      ).toBe(400);
      expect(await bad({ network: 'SOLANA', address: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM' })).toBe(503); // SOLANA not configured here
      expect(await addressBook(user)).toEqual([]);
    });

    it('sends to a new recipient at once with a passkey approval bound to the transfer, and trusts it from then on', async () => {
      const user = await fundedUser();
      const passkey = await addPasskey(user);
      const to = Wallet.createRandom().address;
      const f = fields(to, '10');
      const key = randomUUID();
      const prepared = await prepare(user, f, key);
      expect(prepared.status).toBe(200);
      expect(prepared.body).toMatchObject({
        value_krw: '14000',
        passkey_above_krw: '100000',
        passkey_approval: 'required',
        reasons: ['new-recipient'],
        recipient: { network: 'ETHEREUM', address: to, status: 'unknown', usable_from: null },
      });
      const [slot] = prepared.body.items;
      expect(slot.parameter.authMethod).toBe('passkey');

      const without = await execute(user, f, key);
      expect([without.status, without.body.type, without.body.passkeyRegistered]).toEqual([
        422,
        '/problems/recipient-cooling-off',
        true,
      ]);
      const body = {
        ...f,
        pin: await transferPin(stack, PIN, f, key),
        signing: { items: [approveSlot(slot, passkey)] },
      };
      const sent = await callApi(stack, '/api/v1/transfer/crypto/execute', user, { json: body, key });
      expect([sent.status, sent.body.status, sent.body.transfer_id]).toEqual([
        200,
        expect.stringMatching(INCLUDED),
        prepared.body.transfer_id,
      ]);
      expect(await addressBook(user)).toEqual([
        expect.objectContaining({ address: to, status: 'trusted', approved_by: 'passkey' }),
      ]);
      // The same request again (a retry after a lost answer) finds the same transfer; nothing is sent twice.
      const again = await callApi(stack, '/api/v1/transfer/crypto/execute', user, { json: body, key });
      expect([again.status, again.body.transfer_id]).toEqual([200, prepared.body.transfer_id]);
      expect(await transfersOf(user)).toBe(1);
      // Trusted now: the PIN alone sends to it.
      expect((await execute(user, fields(to, '5'), randomUUID())).body.status).toMatch(INCLUDED);
    });

    it('needs a passkey above the threshold; an approval made for another transfer or amount is refused', async () => {
      const user = await fundedUser();
      const to = Wallet.createRandom().address;
      await stack.orm.em.fork().insert(AddressBookEntryEntity, {
        userId: user.userId,
        networkId: 'ETHEREUM',
        address: to,
        approvedBy: 'cooling-off',
        addedAt: new Date(0),
        usableFrom: new Date(0),
      });
      expect((await execute(user, fields(to, '70'), randomUUID())).body.status).toMatch(INCLUDED); // 98,000 won

      const noPasskey = await execute(user, fields(to, '80'), randomUUID()); // 112,000 won
      expect([noPasskey.status, noPasskey.body.type]).toEqual([422, '/problems/passkey-required']);
      expect(noPasskey.body).toMatchObject({
        rule: 'above-passkey-threshold',
        thresholdKrw: '100000',
        valueKrw: '112000',
        passkeyRegistered: false,
      });
      expect(noPasskey.body.detail).toContain('register a passkey');
      const unregistered = await execute(user, fields(to, '80'), randomUUID(), [
        approveSlot(
          { id: 'tr_x.passkey', parameter: { options: { challenge: 'AAAA', rpId: 'localhost' } } },
          new SoftwarePasskey(),
        ),
      ]);
      expect([unregistered.status, unregistered.body.type, unregistered.body.detail]).toEqual([
        422,
        '/problems/slot-mismatch',
        'You have no passkey: send no passkey slot',
      ]);

      const passkey = await addPasskey(user);
      const big = fields(to, '80');
      const key = randomUUID();
      const prepared = await prepare(user, big, key);
      expect(prepared.body).toMatchObject({
        passkey_approval: 'required',
        reasons: ['above-passkey-threshold'],
        recipient: { status: 'trusted' },
      });
      const [slot] = prepared.body.items;

      // The approval binds the amount, the recipient and the Idempotency-Key: any other transfer is refused.
      const otherAmount = await execute(user, fields(to, '90'), key, [approveSlot(slot, passkey)]);
      expect([otherAmount.status, otherAmount.body.type]).toEqual([422, '/problems/invalid-passkey-assertion']);
      const otherKey = await execute(user, big, randomUUID(), [approveSlot(slot, passkey)]);
      expect([otherKey.status, otherKey.body.type]).toEqual([422, '/problems/slot-mismatch']);
      const stranger = await execute(user, big, key, [approveSlot(slot, new SoftwarePasskey())]);
      expect([stranger.status, stranger.body.type]).toEqual([422, '/problems/unknown-passkey']);
      expect(await failedPins(user)).toBe(0);

      const sent = await execute(user, big, key, [approveSlot(slot, passkey)]);
      expect([sent.status, sent.body.status]).toEqual([200, expect.stringMatching(INCLUDED)]);
      expect(await transfersOf(user)).toBe(2);
      expect((await callApi(stack, '/api/v1/transfer/limits', user)).body).toMatchObject({
        passkey_above_krw: '100000',
        recipient_cooling_off_seconds: COOLING_OFF_SECONDS,
      });
    });

    it('a passkey added with a stolen token and PIN waives no cooling-off and approves nothing above the threshold until its hold ends', async () => {
      const user = await fundedUser();
      const trusted = Wallet.createRandom().address;
      await stack.orm.em.fork().insert(AddressBookEntryEntity, {
        userId: user.userId,
        networkId: 'ETHEREUM',
        address: trusted,
        approvedBy: 'cooling-off',
        addedAt: new Date(0),
        usableFrom: new Date(0),
      });
      // The thief holds the access token and knows the PIN: they enrol a software passkey of their own.
      const { passkey: thiefs, passkeyId } = await enrolPasskey(stack, user, { pin: PIN, name: 'attacker' });
      const listed = (await call(`${stack.apiUrl}/v1/auth/passkeys`, { headers: bearer(user) })).body.items;
      expect(new Date(listed[0].heldUntil).getTime()).toBeGreaterThan(Date.now() + (HOLD_SECONDS - 60) * 1000);

      const own = Wallet.createRandom().address;
      const attempts: Array<[TransferFields, string]> = [
        [fields(own, '10'), 'new-recipient'],
        [fields(trusted, '80'), 'above-passkey-threshold'],
      ];
      for (const [f, rule] of attempts) {
        const key = randomUUID();
        const [slot] = (await prepare(user, f, key)).body.items;
        const refused = await execute(user, f, key, [approveSlot(slot, thiefs)]);
        expect([refused.status, refused.body.type, refused.body.rule]).toEqual([
          422,
          '/problems/passkey-on-hold',
          rule,
        ]);
        expect(new Date(refused.body.heldUntil).getTime()).toBeGreaterThan(Date.now());
      }
      expect(await transfersOf(user)).toBe(0);
      expect(await addressBook(user)).toEqual([expect.objectContaining({ address: trusted })]);
      // What the PIN alone allows stays allowed: a trusted recipient under the threshold.
      expect((await execute(user, fields(trusted, '10'), randomUUID())).body.status).toMatch(INCLUDED);

      // Once the hold has passed (the person was mailed and told by event meanwhile), the passkey approves as any other.
      await ageOut(passkeyId);
      const key = randomUUID();
      const f = fields(own, '10');
      const [slot] = (await prepare(user, f, key)).body.items;
      expect((await execute(user, f, key, [approveSlot(slot, thiefs)])).body.status).toMatch(INCLUDED);
    });
  },
);
