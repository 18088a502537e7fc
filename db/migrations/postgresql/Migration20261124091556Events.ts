import { Migration } from '@mikro-orm/migrations';

export class Migration20261124091556Events extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table \"events\" (\"position\" serial primary key, \"event_id\" varchar(64) not null, \"type\" varchar(64) not null, \"resource_type\" varchar(32) not null, \"resource_id\" varchar(64) not null, \"sequence\" int not null, \"user_id\" varchar(64) null, \"data\" jsonb not null, \"created_at\" timestamptz not null)");
    this.addSql("alter table \"events\" add constraint \"events_event_id_unique\" unique (\"event_id\")");
    this.addSql("create index \"events_type_index\" on \"events\" (\"type\")");
    this.addSql("create index \"events_resource_id_index\" on \"events\" (\"resource_id\")");
    this.addSql("create index \"events_user_id_index\" on \"events\" (\"user_id\")");
    this.addSql("alter table \"events\" add constraint \"events_resource_id_sequence_unique\" unique (\"resource_id\", \"sequence\")");
    this.addSql("create table \"event_streams\" (\"resource_id\" varchar(64) not null, \"last_sequence\" int not null, constraint \"event_streams_pkey\" primary key (\"resource_id\"))");
  }
}
