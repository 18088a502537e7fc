import { Migration } from '@mikro-orm/migrations';

/** As the PostgreSQL migration of the same name; SQLite rebuilds sign_ins for its method check (rows and indexes kept). */
export class Migration20261127030000StepUp extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table `email_changes` (`change_id` text not null, `user_id` text not null, `previous_email_sealed` text not null, `new_email_sealed` text not null, `undo_until` datetime not null, `undone_at` datetime null, `created_at` datetime not null, primary key (`change_id`))',
    );
    this.addSql('create index `email_changes_user_id_index` on `email_changes` (`user_id`)');
    this.addSql('pragma foreign_keys = off');
    this.addSql(
      "create table `sign_ins__temp_alter` (`sign_in_id` text not null, `pass_request_id` text not null, `user_id` text not null, `device_id` text null, `device_label` text null, `pass_token_hash` text null, `pass_token_expires_at` datetime null, `status` text check (`status` in ('in_progress', 'completed', 'failed', 'expired')) not null default 'in_progress', `method` text check (`method` in ('passkey', 'id_card', 'identity')) null, `passkey_id` text null, `tokens_issued_at` datetime null, `purpose` text null, `completed_at` datetime null, `used_at` datetime null, `used_idempotency_key` text null, `created_at` datetime not null, `updated_at` datetime not null, primary key (`sign_in_id`))",
    );
    this.addSql(
      'insert into `sign_ins__temp_alter` (`sign_in_id`, `pass_request_id`, `user_id`, `device_id`, `device_label`, `pass_token_hash`, `pass_token_expires_at`, `status`, `method`, `tokens_issued_at`, `created_at`, `updated_at`) select `sign_in_id`, `pass_request_id`, `user_id`, `device_id`, `device_label`, `pass_token_hash`, `pass_token_expires_at`, `status`, `method`, `tokens_issued_at`, `created_at`, `updated_at` from `sign_ins`',
    );
    this.addSql('drop table `sign_ins`');
    this.addSql('alter table `sign_ins__temp_alter` rename to `sign_ins`');
    this.addSql('create unique index `sign_ins_pass_request_id_unique` on `sign_ins` (`pass_request_id`)');
    this.addSql('create index `sign_ins_user_id_index` on `sign_ins` (`user_id`)');
    this.addSql('pragma foreign_keys = on');
    this.addSql('alter table `users` add column `previous_email_sealed` text null');
    this.addSql('alter table `users` add column `previous_email_until` datetime null');
  }
}
