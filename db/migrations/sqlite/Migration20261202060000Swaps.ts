import { Migration } from '@mikro-orm/migrations';

/** Swaps are signed operations of their own kind (`swap`): SQLite changes a check constraint by copying the table. */
export class Migration20261202060000Swaps extends Migration {
  override async up(): Promise<void> {
    this.addSql('pragma foreign_keys = off');
    this.addSql(
      "create table `signed_operations__temp_alter` (`operation_id` text not null, `kind` text check (`kind` in ('deploy', 'did_key', 'transfer_key', 'account_upgrade', 'recovery_cancel', 'swap')) not null, `user_id` text not null, `network_id` text not null, `account_address` text not null, `owner_address` text not null, `details` json not null, `user_operation` json not null, `user_op_hash` text not null, `status` text check (`status` in ('prepared', 'submitted', 'stalled', 'completed', 'failed', 'replaced')) not null, `stall_reason` text null, `replaced_by` text null, `tx_hash` text null, `error` text null, `expires_at` datetime not null, `created_at` datetime not null, `updated_at` datetime not null, primary key (`operation_id`))",
    );
    this.addSql(
      'insert into `signed_operations__temp_alter` select `operation_id`, `kind`, `user_id`, `network_id`, `account_address`, `owner_address`, `details`, `user_operation`, `user_op_hash`, `status`, `stall_reason`, `replaced_by`, `tx_hash`, `error`, `expires_at`, `created_at`, `updated_at` from `signed_operations`',
    );
    this.addSql('drop table `signed_operations`');
    this.addSql('alter table `signed_operations__temp_alter` rename to `signed_operations`');
    this.addSql('create index `signed_operations_user_id_index` on `signed_operations` (`user_id`)');
    this.addSql('pragma foreign_keys = on');
  }
}
