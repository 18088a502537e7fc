import { Migration } from '@mikro-orm/migrations';

export class Migration20261125110000Devices extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table `account_backups` (`id` text not null, `user_id` text not null, `version` integer not null, `encrypted_mnemonic` text not null, `encrypted_derivation_paths` text not null, `encryption_method` text not null, `device_id` text null, `created_at` datetime not null, primary key (`id`))");
    this.addSql("create unique index `account_backups_user_id_version_unique` on `account_backups` (`user_id`, `version`)");
    this.addSql("create table `devices` (`id` text not null, `user_id` text not null, `device_id` text not null, `label` text null, `session_id` text not null, `sign_in_method` text check (`sign_in_method` in ('registration', 'passkey', 'id_card')) not null, `hold_until` datetime null, `first_seen_at` datetime not null, `signed_in_at` datetime not null, `last_used_at` datetime not null, `revoked_at` datetime null, primary key (`id`))");
    this.addSql("create unique index `devices_user_id_device_id_unique` on `devices` (`user_id`, `device_id`)");
    this.addSql("create table `sign_ins` (`sign_in_id` text not null, `pass_request_id` text not null, `user_id` text not null, `device_id` text null, `device_label` text null, `pass_token_hash` text null, `pass_token_expires_at` datetime null, `status` text check (`status` in ('in_progress', 'completed', 'failed', 'expired')) not null default 'in_progress', `method` text check (`method` in ('passkey', 'id_card')) null, `tokens_issued_at` datetime null, `created_at` datetime not null, `updated_at` datetime not null, primary key (`sign_in_id`))");
    this.addSql("create unique index `sign_ins_pass_request_id_unique` on `sign_ins` (`pass_request_id`)");
    this.addSql("create index `sign_ins_user_id_index` on `sign_ins` (`user_id`)");
    this.addSql("alter table `users` add column `id_card_hash` text null");
    // Every registered user's registering device becomes their first device ("legacy" session: access tokens issued
    // before devices existed name none, and stay valid until that device signs in again or is revoked).
    this.addSql("insert into `devices` (`id`, `user_id`, `device_id`, `label`, `session_id`, `sign_in_method`, `hold_until`, `first_seen_at`, `signed_in_at`, `last_used_at`, `revoked_at`) select 'dev_' || `id`, `id`, `device_id`, null, 'legacy', 'registration', null, `registered_at`, `registered_at`, `registered_at`, null from `users`");
    // The registration's backup becomes version 1 of the account's backup.
    this.addSql("insert into `account_backups` (`id`, `user_id`, `version`, `encrypted_mnemonic`, `encrypted_derivation_paths`, `encryption_method`, `device_id`, `created_at`) select b.`id`, u.`id`, 1, b.`encrypted_mnemonic`, b.`encrypted_derivation_paths`, b.`encryption_method`, null, b.`created_at` from `wallet_backups` b join `users` u on u.`reg_id` = b.`reg_id`");
  }
}
