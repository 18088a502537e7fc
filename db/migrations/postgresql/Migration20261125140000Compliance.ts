import { Migration } from '@mikro-orm/migrations';

export class Migration20261125140000Compliance extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table \"compliance_cases\" (\"case_id\" varchar(64) not null, \"user_id\" varchar(64) not null, \"kind\" text check (\"kind\" in ('sanctions_hit', 'structuring', 'fan_out', 'new_recipient_large', 'new_device_large')) not null, \"status\" text check (\"status\" in ('open', 'approved', 'rejected', 'closed')) not null, \"open_key\" varchar(300) null, \"transfer_id\" varchar(64) null, \"network_id\" varchar(32) null, \"address\" varchar(128) null, \"source\" varchar(64) not null, \"programme\" varchar(200) null, \"found_at\" varchar(32) not null, \"opened_at\" timestamptz not null, \"decided_at\" timestamptz null, \"decided_by\" varchar(128) null, \"reason\" text null, constraint \"compliance_cases_pkey\" primary key (\"case_id\"))");
    this.addSql("create index \"compliance_cases_user_id_index\" on \"compliance_cases\" (\"user_id\")");
    this.addSql("alter table \"compliance_cases\" add constraint \"compliance_cases_open_key_unique\" unique (\"open_key\")");
    this.addSql("create index \"compliance_cases_transfer_id_index\" on \"compliance_cases\" (\"transfer_id\")");
    this.addSql("create table \"sanctioned_addresses\" (\"source\" varchar(32) not null, \"address_key\" varchar(128) not null, \"assets\" varchar(200) not null, constraint \"sanctioned_addresses_pkey\" primary key (\"source\", \"address_key\"))");
    this.addSql("create table \"sanctions_lists\" (\"source\" varchar(32) not null, \"list_date\" varchar(10) not null, \"refreshed_at\" timestamptz not null, \"address_count\" int not null, \"sha256\" varchar(64) not null, \"source_url\" text not null, constraint \"sanctions_lists_pkey\" primary key (\"source\"))");
  }
}
