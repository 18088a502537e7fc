import { Statement } from './statement';
import type { ResidentDatabase } from './resident';
import type { DataEncryption } from '../platform/data-encryption';

/**
 * Whether any stored data is still in a form the first versions wrote (worker/data-upgrades.ts upgrades it): asked
 * at every worker start on the resident database, so that the ORM is opened for the upgrades only when there is one.
 */

/** A text sealed under `aad` with DATA_ENCRYPTION_KEY (what the first versions stored in the clear is not). */
export function isSealedText(encryption: DataEncryption, value: string, aad: string): boolean {
  try {
    encryption.openText(value, aad);
    return true;
  } catch {
    return false;
  }
}

/** Keyed hashes are 43 characters (base64url); the legacy ones 64 (hex). */
const LEGACY_HASHES = new Statement(
  'legacy-account-no-hashes',
  'select 1 as found from bank_accounts where length(account_no_hash) = 64 ' +
    'union all select 1 from bank_verifications where length(account_no_hash) = 64 limit 1',
);
const OPEN_OCR_RESULTS = new Statement(
  'legacy-ocr-results',
  "select 1 as found from registrations where jsonb_typeof(ocr_result) = 'object' limit 1",
  "select 1 as found from registrations where json_type(ocr_result) = 'object' limit 1",
);
const ENGLISH_NAMES = new Statement<{ user_id: string; eng_surname: string; eng_name: string }>(
  'kyc-english-names',
  'select user_id, eng_surname, eng_name from kyc_basic_info',
);

export async function dataUpgradesDue(db: ResidentDatabase, encryption: DataEncryption): Promise<boolean> {
  if ((await db.rows(LEGACY_HASHES, [])).length > 0) return true;
  if ((await db.rows(OPEN_OCR_RESULTS, [])).length > 0) return true;
  return (await db.rows(ENGLISH_NAMES, [])).some(
    (row) =>
      !isSealedText(encryption, row.eng_surname, `eng-name:${row.user_id}`) ||
      !isSealedText(encryption, row.eng_name, `eng-name:${row.user_id}`),
  );
}
