import { Migration } from '@mikro-orm/migrations';

export class Migration20261122060000SmartAccounts extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table `deploy_jobs` (`job_id` text not null, `user_id` text not null, `network_id` text not null, `account_address` text not null, `owner_address` text not null, `user_operation` json not null, `user_op_hash` text not null, `status` text check (`status` in ('prepared', 'submitted', 'completed', 'failed')) not null, `tx_hash` text null, `error` text null, `expires_at` datetime not null, `created_at` datetime not null, `updated_at` datetime not null, primary key (`job_id`))");
    this.addSql("create index `deploy_jobs_user_id_index` on `deploy_jobs` (`user_id`)");
    this.addSql("create table `smart_accounts` (`id` integer not null primary key autoincrement, `user_id` text not null, `network_id` text not null, `address` text not null, `owner_address` text not null, `status` text check (`status` in ('counterfactual', 'deployed')) not null, `deploy_tx_hash` text null, `deployed_at` datetime null, `created_at` datetime not null)");
    this.addSql("create unique index `smart_accounts_user_id_network_id_unique` on `smart_accounts` (`user_id`, `network_id`)");
  }
}
