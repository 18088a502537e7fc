import { Migration } from '@mikro-orm/migrations';

export class Migration20261122110000Assets extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table \"cex_accounts\" (\"cex_account_id\" varchar(64) not null, \"user_id\" varchar(64) not null, \"provider\" varchar(32) not null, \"label\" varchar(64) not null, \"external_account_id\" varchar(128) not null, \"tokens_sealed\" text not null, \"can_read\" boolean not null, \"can_withdraw\" boolean not null, \"balances\" jsonb not null, \"last_sync_at\" timestamptz null, \"registered_at\" timestamptz not null, constraint \"cex_accounts_pkey\" primary key (\"cex_account_id\"))");
    this.addSql("create index \"cex_accounts_user_id_index\" on \"cex_accounts\" (\"user_id\")");
    this.addSql("alter table \"cex_accounts\" add constraint \"cex_accounts_user_id_provider_external_account_id_unique\" unique (\"user_id\", \"provider\", \"external_account_id\")");
    this.addSql("create table \"cex_authorizations\" (\"state\" varchar(64) not null, \"user_id\" varchar(64) not null, \"provider\" varchar(32) not null, \"label\" varchar(64) not null, \"redirect_uri\" varchar(512) not null, \"code_verifier_sealed\" text not null, \"expires_at\" timestamptz not null, \"used_at\" timestamptz null, constraint \"cex_authorizations_pkey\" primary key (\"state\"))");
    this.addSql("create index \"cex_authorizations_user_id_index\" on \"cex_authorizations\" (\"user_id\")");
    this.addSql("create table \"other_assets\" (\"asset_id\" varchar(64) not null, \"user_id\" varchar(64) not null, \"name\" varchar(100) not null, \"category\" varchar(32) not null, \"value\" bigint not null, \"created_at\" timestamptz not null, constraint \"other_assets_pkey\" primary key (\"asset_id\"))");
    this.addSql("create index \"other_assets_user_id_index\" on \"other_assets\" (\"user_id\")");
  }
}
