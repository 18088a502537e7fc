import { Migration } from '@mikro-orm/migrations';

export class Migration20261122080000DidKeys extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table \"did_key_operations\" (\"op_id\" varchar(64) not null, \"user_id\" varchar(64) not null, \"network_id\" varchar(32) not null, \"did\" varchar(128) not null, \"key_type\" varchar(64) not null, \"public_key\" varchar(140) not null, \"user_operation\" jsonb not null, \"user_op_hash\" varchar(66) not null, \"status\" text check (\"status\" in ('prepared', 'submitted', 'completed', 'failed')) not null, \"tx_hash\" varchar(66) null, \"error\" text null, \"expires_at\" timestamptz not null, \"created_at\" timestamptz not null, \"updated_at\" timestamptz not null, constraint \"did_key_operations_pkey\" primary key (\"op_id\"))");
    this.addSql("create index \"did_key_operations_user_id_index\" on \"did_key_operations\" (\"user_id\")");
  }
}
