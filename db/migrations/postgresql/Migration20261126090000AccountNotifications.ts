import { Migration } from '@mikro-orm/migrations';

/**
 * Every smart account, Solana wallet or connected bank account row written tells the api processes that user's id on
 * `session_changed` (the function of migration 20261126070000), so the accounts a quote, a balance or a charge start
 * read are kept per process only while they did not change (api/common/holdings.ts, api/charge/service.ts). SQLite
 * has no notifications; its api reads every time.
 */
export class Migration20261126090000AccountNotifications extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create trigger smart_accounts_session_changed after insert or update or delete on "smart_accounts" for each row execute function notify_session_changed()',
    );
    this.addSql(
      'create trigger solana_wallets_session_changed after insert or update or delete on "solana_wallets" for each row execute function notify_session_changed()',
    );
    this.addSql(
      'create trigger bank_accounts_session_changed after insert or update or delete on "bank_accounts" for each row execute function notify_session_changed()',
    );
  }
}
