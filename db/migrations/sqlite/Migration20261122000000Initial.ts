import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000000Initial extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table `idempotency_records` (`id` integer not null primary key autoincrement, `scope` text not null, `key` text not null, `fingerprint` text not null, `state` text check (`state` in ('in_progress', 'completed')) not null, `response_status` integer null, `response_body` text null, `response_headers` json null, `created_at` datetime not null, `expires_at` datetime not null)");
    this.addSql("create index `idempotency_records_expires_at_index` on `idempotency_records` (`expires_at`)");
    this.addSql("create unique index `idempotency_records_scope_key_unique` on `idempotency_records` (`scope`, `key`)");
    this.addSql("create table `kyc_basic_info` (`user_id` text not null, `kyc_session_id` text null, `full_name_sealed` text not null, `eng_surname` text not null, `eng_name` text not null, `nationality` text not null, `submitted_at` datetime not null, primary key (`user_id`))");
    this.addSql("create table `refresh_tokens` (`id` text not null, `token_hash` text not null, `user_id` text not null, `device_id` text not null, `family_id` text not null, `expires_at` datetime not null, `revoked_at` datetime null, `created_at` datetime not null, primary key (`id`))");
    this.addSql("create unique index `refresh_tokens_token_hash_unique` on `refresh_tokens` (`token_hash`)");
    this.addSql("create index `refresh_tokens_user_id_index` on `refresh_tokens` (`user_id`)");
    this.addSql("create index `refresh_tokens_family_id_index` on `refresh_tokens` (`family_id`)");
    this.addSql("create table `registrations` (`reg_id` text not null, `pass_request_id` text not null, `status` text check (`status` in ('in_progress', 'completed', 'failed', 'expired')) not null default 'in_progress', `step` text not null, `pass_result_sealed` text null, `ci_hash` text null, `device_id` text null, `pass_token_hash` text null, `pass_token_expires_at` datetime null, `ocr_result` json null, `backup_id` text null, `user_id` text null, `created_at` datetime not null, `updated_at` datetime not null, primary key (`reg_id`))");
    this.addSql("create unique index `registrations_pass_request_id_unique` on `registrations` (`pass_request_id`)");
    this.addSql("create table `uploads` (`id` text not null, `reg_id` text not null, `content_type` text not null, `size_bytes` integer not null, `sha256` text not null, `data_sealed` blob not null, `created_at` datetime not null, primary key (`id`))");
    this.addSql("create index `uploads_reg_id_index` on `uploads` (`reg_id`)");
    this.addSql("create table `users` (`id` text not null, `reg_id` text not null, `ci_hash` text not null, `name_sealed` text not null, `phone_sealed` text not null, `masked_phone` text not null, `email` text null, `status` text check (`status` in ('active', 'suspended', 'closed')) not null default 'active', `wallet_type` text not null, `device_id` text not null, `registered_at` datetime not null, primary key (`id`))");
    this.addSql("create unique index `users_reg_id_unique` on `users` (`reg_id`)");
    this.addSql("create unique index `users_ci_hash_unique` on `users` (`ci_hash`)");
    this.addSql("create table `wallet_backups` (`id` text not null, `reg_id` text not null, `encrypted_mnemonic` text not null, `encrypted_derivation_paths` text not null, `encryption_method` text not null, `created_at` datetime not null, primary key (`id`))");
    this.addSql("create unique index `wallet_backups_reg_id_unique` on `wallet_backups` (`reg_id`)");
  }
}
