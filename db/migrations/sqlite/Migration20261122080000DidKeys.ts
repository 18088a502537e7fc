import { Migration } from '@mikro-orm/migrations';

export class Migration20261122080000DidKeys extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table `did_key_operations` (`op_id` text not null, `user_id` text not null, `network_id` text not null, `did` text not null, `key_type` text not null, `public_key` text not null, `user_operation` json not null, `user_op_hash` text not null, `status` text check (`status` in ('prepared', 'submitted', 'completed', 'failed')) not null, `tx_hash` text null, `error` text null, `expires_at` datetime not null, `created_at` datetime not null, `updated_at` datetime not null, primary key (`op_id`))");
    this.addSql("create index `did_key_operations_user_id_index` on `did_key_operations` (`user_id`)");
  }
}
