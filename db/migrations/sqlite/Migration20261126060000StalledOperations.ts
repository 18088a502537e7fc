import { Migration } from '@mikro-orm/migrations';

export class Migration20261126060000StalledOperations extends Migration {
  override async up(): Promise<void> {
    // SQLite cannot change a check constraint: both tables are rebuilt with the new statuses (rows and indexes kept).
    this.addSql('pragma foreign_keys = off');
    this.addSql(
      "create table `signed_operations__temp_alter` (`operation_id` text not null, `kind` text check (`kind` in ('deploy', 'did_key', 'transfer_key', 'account_upgrade', 'recovery_cancel')) not null, `user_id` text not null, `network_id` text not null, `account_address` text not null, `owner_address` text not null, `details` json not null, `user_operation` json not null, `user_op_hash` text not null, `status` text check (`status` in ('prepared', 'submitted', 'stalled', 'completed', 'failed', 'replaced')) not null, `stall_reason` text null, `replaced_by` text null, `tx_hash` text null, `error` text null, `expires_at` datetime not null, `created_at` datetime not null, `updated_at` datetime not null, primary key (`operation_id`))",
    );
    this.addSql(
      'insert into `signed_operations__temp_alter` (`operation_id`, `kind`, `user_id`, `network_id`, `account_address`, `owner_address`, `details`, `user_operation`, `user_op_hash`, `status`, `tx_hash`, `error`, `expires_at`, `created_at`, `updated_at`) select `operation_id`, `kind`, `user_id`, `network_id`, `account_address`, `owner_address`, `details`, `user_operation`, `user_op_hash`, `status`, `tx_hash`, `error`, `expires_at`, `created_at`, `updated_at` from `signed_operations`',
    );
    this.addSql('drop table `signed_operations`');
    this.addSql('alter table `signed_operations__temp_alter` rename to `signed_operations`');
    this.addSql('create index `signed_operations_user_id_index` on `signed_operations` (`user_id`)');
    this.addSql(
      "create table `key_rotation_networks__temp_alter` (`id` integer not null primary key autoincrement, `task_id` text not null, `network_id` text not null, `account_address` text not null, `user_operation` json not null, `user_op_hash` text not null, `proof` json not null, `status` text check (`status` in ('prepared', 'processing', 'stalled', 'completed', 'failed')) not null, `tx_hash` text null, `error` text null, `retryable` integer not null default false, `updated_at` datetime not null)",
    );
    this.addSql(
      'insert into `key_rotation_networks__temp_alter` select `id`, `task_id`, `network_id`, `account_address`, `user_operation`, `user_op_hash`, `proof`, `status`, `tx_hash`, `error`, `retryable`, `updated_at` from `key_rotation_networks`',
    );
    this.addSql('drop table `key_rotation_networks`');
    this.addSql('alter table `key_rotation_networks__temp_alter` rename to `key_rotation_networks`');
    this.addSql('create index `key_rotation_networks_task_id_index` on `key_rotation_networks` (`task_id`)');
    this.addSql(
      'create unique index `key_rotation_networks_task_id_network_id_unique` on `key_rotation_networks` (`task_id`, `network_id`)',
    );
    this.addSql('pragma foreign_keys = on');
    this.addSql('alter table `transfers` add column `replaced_operations` json null');
  }
}
