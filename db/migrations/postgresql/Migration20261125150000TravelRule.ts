import { Migration } from '@mikro-orm/migrations';

export class Migration20261125150000TravelRule extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table \"travel_rule_records\" (\"record_id\" varchar(64) not null, \"direction\" text check (\"direction\" in ('outbound', 'inbound')) not null, \"user_id\" varchar(64) null, \"transfer_id\" varchar(64) null, \"counterpart_vasp_id\" varchar(128) not null, \"counterpart_vasp_name\" varchar(300) not null, \"network_id\" varchar(32) not null, \"address\" varchar(128) not null, \"status\" text check (\"status\" in ('pending', 'approved', 'rejected', 'timed_out', 'failed', 'answered')) not null, \"payload_sealed\" text not null, \"reason\" text null, \"request_identifier\" varchar(64) not null, \"requested_at\" timestamptz not null, \"decided_at\" timestamptz null, \"retain_until\" timestamptz not null, constraint \"travel_rule_records_pkey\" primary key (\"record_id\"))");
    this.addSql("create index \"travel_rule_records_user_id_index\" on \"travel_rule_records\" (\"user_id\")");
    this.addSql("alter table \"travel_rule_records\" add constraint \"travel_rule_records_transfer_id_unique\" unique (\"transfer_id\")");
    this.addSql("alter table \"address_book\" add column \"ownership_challenge\" text null, add column \"ownership_challenge_expires_at\" timestamptz null, add column \"ownership_proved_at\" timestamptz null, add column \"ownership_proof\" jsonb null");
    this.addSql("alter table \"transfers\" add column \"travel_rule\" jsonb null");
  }
}
