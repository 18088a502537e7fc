import { Migration } from '@mikro-orm/migrations';

export class Migration20261122110000Assets extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table `cex_accounts` (`cex_account_id` text not null, `user_id` text not null, `provider` text not null, `label` text not null, `external_account_id` text not null, `tokens_sealed` text not null, `can_read` integer not null, `can_withdraw` integer not null, `balances` json not null, `last_sync_at` datetime null, `registered_at` datetime not null, primary key (`cex_account_id`))");
    this.addSql("create index `cex_accounts_user_id_index` on `cex_accounts` (`user_id`)");
    this.addSql("create unique index `cex_accounts_user_id_provider_external_account_id_unique` on `cex_accounts` (`user_id`, `provider`, `external_account_id`)");
    this.addSql("create table `cex_authorizations` (`state` text not null, `user_id` text not null, `provider` text not null, `label` text not null, `redirect_uri` text not null, `code_verifier_sealed` text not null, `expires_at` datetime not null, `used_at` datetime null, primary key (`state`))");
    this.addSql("create index `cex_authorizations_user_id_index` on `cex_authorizations` (`user_id`)");
    this.addSql("create table `other_assets` (`asset_id` text not null, `user_id` text not null, `name` text not null, `category` text not null, `value` bigint not null, `created_at` datetime not null, primary key (`asset_id`))");
    this.addSql("create index `other_assets_user_id_index` on `other_assets` (`user_id`)");
  }
}
