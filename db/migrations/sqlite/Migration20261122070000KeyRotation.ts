import { Migration } from '@mikro-orm/migrations';

export class Migration20261122070000KeyRotation extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table `key_rotation_networks` (`id` integer not null primary key autoincrement, `task_id` text not null, `network_id` text not null, `account_address` text not null, `user_operation` json not null, `user_op_hash` text not null, `proof` json not null, `status` text check (`status` in ('prepared', 'processing', 'completed', 'failed')) not null, `tx_hash` text null, `error` text null, `retryable` integer not null default false, `updated_at` datetime not null)");
    this.addSql("create index `key_rotation_networks_task_id_index` on `key_rotation_networks` (`task_id`)");
    this.addSql("create unique index `key_rotation_networks_task_id_network_id_unique` on `key_rotation_networks` (`task_id`, `network_id`)");
    this.addSql("create table `key_rotation_tasks` (`task_id` text not null, `user_id` text not null, `old_owner_address` text not null, `new_owner_address` text not null, `root` text not null, `root_signature` text null, `status` text check (`status` in ('prepared', 'processing', 'completed', 'partial_failure')) not null, `expires_at` datetime not null, `created_at` datetime not null, `updated_at` datetime not null, primary key (`task_id`))");
    this.addSql("create index `key_rotation_tasks_user_id_index` on `key_rotation_tasks` (`user_id`)");
  }
}
