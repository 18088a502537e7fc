import { raw } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm';
import {
  BankAccountEntity,
  BankVerificationEntity,
  KycBasicInfoEntity,
  LEGACY_ACCOUNT_NO_HASH,
  RegistrationEntity,
  bankAccountNoAad,
  bankAccountNoFingerprint,
  sealOcrResult,
} from '../db/entities';
import type { DataEncryption } from '../platform/data-encryption';
import { isSealedText } from '../db/legacy-data';

/**
 * Upgrades of stored data that need DATA_ENCRYPTION_KEY, so they run in the worker (at start) rather than in a SQL
 * migration. Each is idempotent and touches only rows still in the old form.
 */

/**
 * Replaces the bare SHA-256 account-number hashes the first versions stored with keyed ones, opening each sealed
 * number (the key is DATA_ENCRYPTION_KEY, so it runs here, not in a SQL migration). Idempotent: a row already keyed
 * is not touched, so every worker start may run it; answers how many rows it re-keyed.
 */
export async function rekeyAccountNumberHashes(orm: Orm, encryption: DataEncryption): Promise<number> {
  let rekeyed = 0;
  for (const entity of [BankAccountEntity, BankVerificationEntity] as const) {
    const em = orm.em.fork();
    // Keyed hashes are 43 characters (base64url); the legacy ones 64 (hex).
    const rows = await em.find(entity as typeof BankAccountEntity, { [raw('length(account_no_hash)')]: 64 });
    for (const row of rows) {
      if (!LEGACY_ACCOUNT_NO_HASH.test(row.accountNoHash)) continue;
      const accountNo = encryption.openText(row.accountNoSealed, bankAccountNoAad(row.userId));
      row.accountNoHash = bankAccountNoFingerprint(encryption, row.bankCode, accountNo);
      rekeyed += 1;
    }
    await em.flush();
  }
  return rekeyed;
}

/**
 * Seals personal data the first versions stored in the clear: OCR results (registrations.ocr_result) and English
 * names (kyc_basic_info). Answers how many rows it sealed.
 */
export async function sealLegacyPersonalData(orm: Orm, encryption: DataEncryption): Promise<number> {
  let sealed = 0;
  const em = orm.em.fork();
  const postgres = orm.em.getDriver() instanceof PostgreSqlDriver;
  for (const registration of await em.find(RegistrationEntity, {
    [raw(postgres ? 'jsonb_typeof(ocr_result)' : 'json_type(ocr_result)')]: 'object',
  })) {
    if (typeof registration.ocrResult !== 'object' || registration.ocrResult === null) continue;
    registration.ocrResult = sealOcrResult(encryption, registration.regId, registration.ocrResult);
    sealed += 1;
  }
  for (const info of await em.find(KycBasicInfoEntity, {})) {
    const aad = `eng-name:${info.userId}`;
    const isSealed = (value: string) => isSealedText(encryption, value, aad);
    if (isSealed(info.engSurnameSealed) && isSealed(info.engNameSealed)) continue;
    if (!isSealed(info.engSurnameSealed)) info.engSurnameSealed = encryption.sealText(info.engSurnameSealed, aad);
    if (!isSealed(info.engNameSealed)) info.engNameSealed = encryption.sealText(info.engNameSealed, aad);
    sealed += 1;
  }
  await em.flush();
  return sealed;
}
