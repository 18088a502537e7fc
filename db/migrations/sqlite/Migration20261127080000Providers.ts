import { Migration } from '@mikro-orm/migrations';

export class Migration20261127080000Providers extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table `bank_consents` (`consent_id` text not null, `user_id` text not null, `status` text check (`status` in ('pending', 'active', 'failed', 'expired', 'replaced')) not null, `state_hash` text not null, `return_uri` text null, `user_ref` text null, `access_token_sealed` text null, `refresh_token_sealed` text null, `scope` text null, `access_expires_at` datetime null, `token_version` integer not null default 0, `return_by` datetime not null, `failure` text null, `created_at` datetime not null, `updated_at` datetime not null, primary key (`consent_id`))");
    this.addSql("create index `bank_consents_user_id_index` on `bank_consents` (`user_id`)");
    this.addSql("create unique index `bank_consents_state_hash_unique` on `bank_consents` (`state_hash`)");
    this.addSql("create table `bank_consent_accounts` (`id` text not null, `consent_id` text not null, `user_id` text not null, `rail_account_ref` text not null, `bank_code` text not null, `bank_name` text not null, `account_no_masked` text not null, `withdrawals_agreed` integer not null, primary key (`id`))");
    this.addSql("create index `bank_consent_accounts_consent_id_index` on `bank_consent_accounts` (`consent_id`)");
    this.addSql("create index `bank_consent_accounts_user_id_index` on `bank_consent_accounts` (`user_id`)");
    this.addSql("create unique index `bank_consent_accounts_consent_id_rail_account_ref_unique` on `bank_consent_accounts` (`consent_id`, `rail_account_ref`)");
    this.addSql("create table `bank_tran_ids` (`reference` text not null, `bank_tran_id` text not null, `tran_date` text not null, `direction` text check (`direction` in ('deposit', 'withdrawal', 'inquiry')) not null, `amount` bigint not null, `sent_at` datetime null, `earlier_ids` json null, `created_at` datetime not null, primary key (`reference`))");
    this.addSql("create unique index `bank_tran_ids_bank_tran_id_unique` on `bank_tran_ids` (`bank_tran_id`)");
    this.addSql("create table `mail_sends` (`message_key` text not null, `message_id` text not null, `status` text check (`status` in ('sending', 'sent')) not null, `attempts` integer not null default 0, `created_at` datetime not null, `sent_at` datetime null, primary key (`message_key`))");
    this.addSql("alter table `bank_accounts` add column `rail_account_ref` text null");
    this.addSql("alter table `bank_accounts` add column `consent_id` text null");
    this.addSql("create unique index `bank_accounts_rail_account_ref_unique` on `bank_accounts` (`rail_account_ref`)");
    this.addSql("alter table `uploads` add column `reading_sealed` text null");
    this.addSql("alter table `uploads` add column `check_result` text null");
  }
}
