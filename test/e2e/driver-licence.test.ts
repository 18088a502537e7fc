import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, cardOf, registerUser, type RegisteredUser } from '../helpers/http';
import { idCardProof, signInTokens, startSignIn, verifyOnNewDevice } from '../helpers/sign-in';
import type { CardText } from '../../sandbox/id-card-image';

/**
 * A driver's licence as the second proof of a sign-in: the reader (CLOVA's ID-card model) reads its number and the
 * serial printed under the small photo (암호일련번호), and the authenticity check (useB, for 도로교통공단) needs both:
 * without the right serial the authority confirms a licence, not this card.
 */
describe("a driver's licence as the ID card of a sign-in", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack(testDatabases()[0]!);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const licenceOf = (user: RegisteredUser, serial: string): CardText => ({
    ...cardOf(user.person),
    kind: 'driver_license',
    licenseNumber: '11-15-044391-61',
    licenseSerial: serial,
  });
  const signIn = async (user: RegisteredUser, card: CardText) => {
    const device = await verifyOnNewDevice(stack, user.person);
    const { signInId } = (await startSignIn(stack, device)).body;
    const proof = await idCardProof(stack, device, signInId, card, 'driver_license');
    return { device, signInId, proof };
  };

  it('signs in with the licence the authority knows by its serial, and refuses another serial or a licence reported lost', async () => {
    const user = await registerUser(stack);
    const registered = await call(`${stack.sandboxUrl}/useb/_licenses`, {
      json: { licenseNumber: '111504439161', serial: '9WSWRQ' },
    });
    expect(registered.status).toBe(201);

    const forged = await signIn(user, licenceOf(user, 'AB12CD'));
    expect([forged.proof.status, forged.proof.body.type]).toEqual([422, '/problems/id-card-invalid']);
    expect(forged.proof.body.detail).toContain('mismatch');

    // Found by an outside review: with the serial covered, the authority confirmed the licence (not this card): an old
    // card of a licence replaced after a loss would pass. A licence without its serial proves nothing.
    const covered = await signIn(user, { ...licenceOf(user, '9WSWRQ'), licenseSerial: undefined });
    expect([covered.proof.status, covered.proof.body.type]).toEqual([422, '/problems/id-card-unreadable']);

    // A licence read as a resident card is not what the person said it is: no check is asked for.
    const declared = await signIn(user, { ...licenceOf(user, '9WSWRQ'), kind: 'resident_id' });
    expect(declared.proof.status).toBe(422);

    const genuine = await signIn(user, licenceOf(user, '9WSWRQ'));
    expect(genuine.proof.status).toBe(200);
    expect((await signInTokens(stack, genuine.device, genuine.signInId)).status).toBe(200);

    await call(`${stack.sandboxUrl}/useb/_reports`, { json: { licenseNumber: '111504439161', status: 'lost' } });
    const lost = await signIn(user, licenceOf(user, '9WSWRQ'));
    expect([lost.proof.status, lost.proof.body.detail]).toEqual([422, expect.stringContaining('reported lost')]);
  });
});
