import { Migration } from '@mikro-orm/migrations';

export class Migration20261202021924Payouts extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table `payouts` (`payout_id` text not null, `user_id` text not null, `bank_account_id` text not null, `bank_code` text not null, `amount` bigint not null, `currency` text not null, `purpose` text check (`purpose` in ('request', 'closure')) not null, `status` text check (`status` in ('processing', 'completed', 'failed', 'needs_review')) not null, `bank_status` text null, `failure_reason` text null, `failure_code` text null, `created_at` datetime not null, `updated_at` datetime not null, `completed_at` datetime null, primary key (`payout_id`))");
    this.addSql("create index `payouts_user_id_index` on `payouts` (`user_id`)");
    this.addSql("create index `payouts_user_id_created_at_index` on `payouts` (`user_id`, `created_at`)");
    this.addSql("pragma foreign_keys = off");
    this.addSql("create table `ledger_accounts__temp_alter` (`account_id` text not null, `user_id` text null, `kind` text check (`kind` in ('user_balance', 'bank_clearing', 'payouts_in_transit')) not null, `currency` text not null, `balance` bigint not null default 0, `updated_at` datetime not null, primary key (`account_id`))");
    this.addSql("insert into `ledger_accounts__temp_alter` select `account_id`, `user_id`, `kind`, `currency`, `balance`, `updated_at` from `ledger_accounts`");
    this.addSql("drop table `ledger_accounts`");
    this.addSql("alter table `ledger_accounts__temp_alter` rename to `ledger_accounts`");
    this.addSql("create index `ledger_accounts_user_id_index` on `ledger_accounts` (`user_id`)");
    this.addSql("pragma foreign_keys = on");
  }
}
