import { Migration } from '@mikro-orm/migrations';

export class Migration20261124115358CredentialStatus extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table \"credential_status_lists\" (\"id\" int not null, \"purpose\" varchar(32) not null, \"length\" int not null, \"allocated\" int not null default 0, \"multiplier\" int not null, \"offset\" int not null, \"version\" int not null default 0, \"document\" text not null, \"updated_at\" timestamptz not null, constraint \"credential_status_lists_pkey\" primary key (\"id\"))");
    this.addSql("alter table \"users\" add column \"closed_at\" timestamptz null");
    this.addSql("alter table \"verifiable_credentials\" add column \"holder\" varchar(160) null, add column \"status_list_id\" int null, add column \"status_list_index\" int null, add column \"revoked_at\" timestamptz null, add column \"revocation_reason\" varchar(300) null");
    this.addSql("alter table \"verifiable_credentials\" alter column \"source_key\" type varchar(240) using (\"source_key\"::varchar(240))");
    this.addSql("alter table \"verifiable_credentials\" add constraint \"verifiable_credentials_status_list_id_status_list_index_unique\" unique (\"status_list_id\", \"status_list_index\")");
  }
}
