import { createHash, randomBytes } from 'node:crypto';
import { createOrm, type Orm } from '../../db/orm';
import {
  BankAccountEntity,
  BankVerificationEntity,
  KycBasicInfoEntity,
  RegistrationEntity,
  bankAccountNoAad,
  bankAccountNoFingerprint,
  openOcrResult,
} from '../../db/entities';
import { DataEncryption } from '../../platform/data-encryption';
import { rekeyAccountNumberHashes, sealLegacyPersonalData } from '../../worker/data-upgrades';
import { testDatabases } from '../helpers/databases';

describe.each(testDatabases())('stored data upgraded by the worker on $name', (kind) => {
  const encryption = new DataEncryption(randomBytes(32).toString('base64'));
  let orm: Orm;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const database = await kind.create();
    drop = database.drop;
    orm = await createOrm(database.url, { migrate: true });
  });
  afterAll(async () => {
    await orm?.close();
    await drop?.();
  });

  it('are keyed: the same number under another key hashes differently, and a bare SHA-256 is not what is stored', () => {
    const other = new DataEncryption(randomBytes(32).toString('base64'));
    const keyed = bankAccountNoFingerprint(encryption, '004', '12345678901234');
    expect(keyed).toBe(bankAccountNoFingerprint(encryption, '004', '12345678901234'));
    expect(keyed).not.toBe(bankAccountNoFingerprint(other, '004', '12345678901234'));
    expect(keyed).not.toBe(createHash('sha256').update('004\n12345678901234').digest('hex'));
  });

  it('re-keys the bare SHA-256 hashes the first versions stored, once, from the sealed numbers', async () => {
    const legacy = (accountNo: string) => createHash('sha256').update(`004\n${accountNo}`).digest('hex');
    const em = orm.em.fork();
    const userId = `usr_${randomBytes(4).toString('hex')}`;
    const sealed = (accountNo: string) => encryption.sealText(accountNo, bankAccountNoAad(userId));
    em.create(BankAccountEntity, {
      bankAccountId: 'ba_legacy',
      userId,
      bankCode: '004',
      bankName: 'KB국민은행',
      accountNoSealed: sealed('11112222333344'),
      accountNoHash: legacy('11112222333344'),
      maskedAccountNo: '111********344',
      currency: 'KRW',
    });
    em.create(BankAccountEntity, {
      bankAccountId: 'ba_keyed',
      userId,
      bankCode: '004',
      bankName: 'KB국민은행',
      accountNoSealed: sealed('55556666777788'),
      accountNoHash: bankAccountNoFingerprint(encryption, '004', '55556666777788'),
      maskedAccountNo: '555********788',
      currency: 'KRW',
    });
    em.create(BankVerificationEntity, {
      verificationId: 'bv_legacy',
      userId,
      bankCode: '004',
      accountNoSealed: sealed('99990000111122'),
      accountNoHash: legacy('99990000111122'),
      codeHash: 'x'.repeat(64),
      status: 'pending',
      expiresAt: new Date(Date.now() + 60_000),
    });
    await em.flush();

    expect(await rekeyAccountNumberHashes(orm, encryption)).toBe(2);
    const read = orm.em.fork();
    expect((await read.findOneOrFail(BankAccountEntity, { bankAccountId: 'ba_legacy' })).accountNoHash).toBe(
      bankAccountNoFingerprint(encryption, '004', '11112222333344'),
    );
    expect((await read.findOneOrFail(BankAccountEntity, { bankAccountId: 'ba_keyed' })).accountNoHash).toBe(
      bankAccountNoFingerprint(encryption, '004', '55556666777788'),
    );
    expect((await read.findOneOrFail(BankVerificationEntity, { verificationId: 'bv_legacy' })).accountNoHash).toBe(
      bankAccountNoFingerprint(encryption, '004', '99990000111122'),
    );
    expect(await rekeyAccountNumberHashes(orm, encryption)).toBe(0);
  });

  it('seals the OCR results and English names the first versions stored in the clear, once', async () => {
    const em = orm.em.fork();
    const regId = `reg_${randomBytes(6).toString('hex')}`;
    const userId = `usr_${randomBytes(6).toString('hex')}`;
    em.create(RegistrationEntity, {
      regId,
      passRequestId: `pr_${regId}`,
      step: 'backup',
      ocrResult: { name: '홍길동', birthDate: '1990-01-15', verified: true },
    });
    em.create(KycBasicInfoEntity, {
      userId,
      fullNameSealed: encryption.sealText('홍길동', userId),
      engSurnameSealed: 'HONG',
      engNameSealed: 'GILDONG',
      nationality: 'KR',
    });
    await em.flush();

    expect(await sealLegacyPersonalData(orm, encryption)).toBe(2);
    const [raw] = await orm.em
      .getConnection()
      .execute('select ocr_result from registrations where reg_id = ?', [regId]);
    expect(JSON.stringify(raw)).not.toContain('1990-01-15');
    const registration = await orm.em.fork().findOneOrFail(RegistrationEntity, { regId });
    expect(openOcrResult(encryption, regId, registration.ocrResult!)).toEqual({
      name: '홍길동',
      birthDate: '1990-01-15',
      verified: true,
    });
    const [names] = await orm.em
      .getConnection()
      .execute('select eng_surname, eng_name from kyc_basic_info where user_id = ?', [userId]);
    expect(JSON.stringify(names)).not.toMatch(/HONG|GILDONG/);
    const info = await orm.em.fork().findOneOrFail(KycBasicInfoEntity, { userId });
    expect([
      encryption.openText(info.engSurnameSealed, `eng-name:${userId}`),
      encryption.openText(info.engNameSealed, `eng-name:${userId}`),
    ]).toEqual(['HONG', 'GILDONG']);
    expect(await sealLegacyPersonalData(orm, encryption)).toBe(0);
  });
});
