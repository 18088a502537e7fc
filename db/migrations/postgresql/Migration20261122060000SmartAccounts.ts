import { Migration } from '@mikro-orm/migrations';

export class Migration20261122060000SmartAccounts extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table \"deploy_jobs\" (\"job_id\" varchar(64) not null, \"user_id\" varchar(64) not null, \"network_id\" varchar(32) not null, \"account_address\" varchar(42) not null, \"owner_address\" varchar(42) not null, \"user_operation\" jsonb not null, \"user_op_hash\" varchar(66) not null, \"status\" text check (\"status\" in ('prepared', 'submitted', 'completed', 'failed')) not null, \"tx_hash\" varchar(66) null, \"error\" text null, \"expires_at\" timestamptz not null, \"created_at\" timestamptz not null, \"updated_at\" timestamptz not null, constraint \"deploy_jobs_pkey\" primary key (\"job_id\"))");
    this.addSql("create index \"deploy_jobs_user_id_index\" on \"deploy_jobs\" (\"user_id\")");
    this.addSql("create table \"smart_accounts\" (\"id\" serial primary key, \"user_id\" varchar(64) not null, \"network_id\" varchar(32) not null, \"address\" varchar(42) not null, \"owner_address\" varchar(42) not null, \"status\" text check (\"status\" in ('counterfactual', 'deployed')) not null, \"deploy_tx_hash\" varchar(66) null, \"deployed_at\" timestamptz null, \"created_at\" timestamptz not null)");
    this.addSql("alter table \"smart_accounts\" add constraint \"smart_accounts_user_id_network_id_unique\" unique (\"user_id\", \"network_id\")");
  }
}
