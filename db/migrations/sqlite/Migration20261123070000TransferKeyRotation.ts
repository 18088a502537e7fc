import { Migration } from '@mikro-orm/migrations';

/** Transfer keys replaced by a rotation, and signed operations that change the transfer key's grant (SQLite rebuilds the table for its check). */
export class Migration20261123070000TransferKeyRotation extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table `retired_transfer_keys` (`address` text not null, `user_id` text not null, `key_sealed` text not null, `created_at` datetime not null, `retired_at` datetime not null, primary key (`address`))");
    this.addSql("create index `retired_transfer_keys_user_id_index` on `retired_transfer_keys` (`user_id`)");
    this.addSql("create table `signed_operations__temp_alter` (`operation_id` text not null, `kind` text check (`kind` in ('deploy', 'did_key', 'transfer_key')) not null, `user_id` text not null, `network_id` text not null, `account_address` text not null, `owner_address` text not null, `details` json not null, `user_operation` json not null, `user_op_hash` text not null, `status` text check (`status` in ('prepared', 'submitted', 'completed', 'failed')) not null, `tx_hash` text null, `error` text null, `expires_at` datetime not null, `created_at` datetime not null, `updated_at` datetime not null, primary key (`operation_id`))");
    this.addSql("insert into `signed_operations__temp_alter` select `operation_id`, `kind`, `user_id`, `network_id`, `account_address`, `owner_address`, `details`, `user_operation`, `user_op_hash`, `status`, `tx_hash`, `error`, `expires_at`, `created_at`, `updated_at` from `signed_operations`");
    this.addSql("drop table `signed_operations`");
    this.addSql("alter table `signed_operations__temp_alter` rename to `signed_operations`");
    this.addSql("create index `signed_operations_user_id_index` on `signed_operations` (`user_id`)");
  }
}
