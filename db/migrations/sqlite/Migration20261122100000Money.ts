import { Migration } from '@mikro-orm/migrations';

export class Migration20261122100000Money extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table `bank_accounts` (`bank_account_id` text not null, `user_id` text not null, `bank_code` text not null, `bank_name` text not null, `account_no_sealed` text not null, `account_no_hash` text not null, `masked_account_no` text not null, `currency` text not null, `connected_at` datetime not null, primary key (`bank_account_id`))");
    this.addSql("create index `bank_accounts_user_id_index` on `bank_accounts` (`user_id`)");
    this.addSql("create unique index `bank_accounts_user_id_bank_code_account_no_hash_unique` on `bank_accounts` (`user_id`, `bank_code`, `account_no_hash`)");
    this.addSql("create table `bank_verifications` (`verification_id` text not null, `user_id` text not null, `bank_code` text not null, `account_no_sealed` text not null, `account_no_hash` text not null, `code_hash` text not null, `attempts` integer not null default 0, `status` text check (`status` in ('pending', 'verified', 'failed', 'expired')) not null, `session_id` text null, `expires_at` datetime not null, `created_at` datetime not null, `updated_at` datetime not null, primary key (`verification_id`))");
    this.addSql("create index `bank_verifications_user_id_index` on `bank_verifications` (`user_id`)");
    this.addSql("create table `charges` (`charge_id` text not null, `user_id` text not null, `bank_account_id` text not null, `bank_code` text not null, `amount` bigint not null, `currency` text not null, `status` text check (`status` in ('processing', 'completed', 'failed')) not null, `bank_status` text null, `failure_reason` text null, `created_at` datetime not null, `updated_at` datetime not null, `completed_at` datetime null, primary key (`charge_id`))");
    this.addSql("create index `charges_user_id_index` on `charges` (`user_id`)");
    this.addSql("create table `ledger_accounts` (`account_id` text not null, `user_id` text null, `kind` text check (`kind` in ('user_balance', 'bank_clearing')) not null, `currency` text not null, `balance` bigint not null default 0, `updated_at` datetime not null, primary key (`account_id`))");
    this.addSql("create index `ledger_accounts_user_id_index` on `ledger_accounts` (`user_id`)");
    this.addSql("create table `ledger_entries` (`id` integer not null primary key autoincrement, `journal_id` text not null, `account_id` text not null, `amount` bigint not null, `currency` text not null, `posted_at` datetime not null)");
    this.addSql("create index `ledger_entries_journal_id_index` on `ledger_entries` (`journal_id`)");
    this.addSql("create index `ledger_entries_account_id_index` on `ledger_entries` (`account_id`)");
    this.addSql("create unique index `ledger_entries_journal_id_account_id_unique` on `ledger_entries` (`journal_id`, `account_id`)");
    this.addSql("create table `ledger_journals` (`journal_id` text not null, `kind` text not null, `user_id` text null, `reference` text not null, `posted_at` datetime not null, primary key (`journal_id`))");
    this.addSql("create index `ledger_journals_user_id_index` on `ledger_journals` (`user_id`)");
  }
}
