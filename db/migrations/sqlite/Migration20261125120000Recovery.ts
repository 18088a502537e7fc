import { Migration } from '@mikro-orm/migrations';

export class Migration20261125120000Recovery extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table `recoveries` (`recovery_id` text not null, `user_id` text not null, `new_owner_address` text not null, `device_id` text not null, `status` text check (`status` in ('scheduling', 'scheduled', 'executed', 'cancelled', 'partial', 'failed')) not null, `created_at` datetime not null, `updated_at` datetime not null, primary key (`recovery_id`))");
    this.addSql("create index `recoveries_user_id_index` on `recoveries` (`user_id`)");
    this.addSql("create table `recovery_networks` (`id` text not null, `recovery_id` text not null, `network_id` text not null, `account_address` text not null, `status` text check (`status` in ('pending', 'scheduled', 'executed', 'cancelled', 'not_recoverable', 'failed')) not null, `execute_after` datetime null, `schedule_tx_hash` text null, `execute_tx_hash` text null, `error` text null, `updated_at` datetime not null, primary key (`id`))");
    this.addSql("create index `recovery_networks_recovery_id_index` on `recovery_networks` (`recovery_id`)");
    this.addSql("create unique index `recovery_networks_recovery_id_network_id_unique` on `recovery_networks` (`recovery_id`, `network_id`)");
    // SQLite cannot change a check constraint: the table is rebuilt with the new kinds (rows and index kept).
    this.addSql("pragma foreign_keys = off");
    this.addSql("create table `signed_operations__temp_alter` (`operation_id` text not null, `kind` text check (`kind` in ('deploy', 'did_key', 'transfer_key', 'account_upgrade', 'recovery_cancel')) not null, `user_id` text not null, `network_id` text not null, `account_address` text not null, `owner_address` text not null, `details` json not null, `user_operation` json not null, `user_op_hash` text not null, `status` text check (`status` in ('prepared', 'submitted', 'completed', 'failed')) not null, `tx_hash` text null, `error` text null, `expires_at` datetime not null, `created_at` datetime not null, `updated_at` datetime not null, primary key (`operation_id`))");
    this.addSql("insert into `signed_operations__temp_alter` select `operation_id`, `kind`, `user_id`, `network_id`, `account_address`, `owner_address`, `details`, `user_operation`, `user_op_hash`, `status`, `tx_hash`, `error`, `expires_at`, `created_at`, `updated_at` from `signed_operations`");
    this.addSql("drop table `signed_operations`");
    this.addSql("alter table `signed_operations__temp_alter` rename to `signed_operations`");
    this.addSql("create index `signed_operations_user_id_index` on `signed_operations` (`user_id`)");
    this.addSql("pragma foreign_keys = on");
  }
}
