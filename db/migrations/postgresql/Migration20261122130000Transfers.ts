import { Migration } from '@mikro-orm/migrations';

export class Migration20261122130000Transfers extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table \"transfers\" (\"transfer_id\" varchar(64) not null, \"user_id\" varchar(64) not null, \"network_id\" varchar(32) not null, \"token\" varchar(16) not null, \"decimals\" int not null, \"from_address\" varchar(64) not null, \"to_address\" varchar(64) not null, \"amount\" varchar(80) not null, \"user_operation\" jsonb not null, \"user_op_hash\" varchar(66) not null, \"status\" text check (\"status\" in ('processing', 'confirmed', 'failed')) not null, \"tx_hash\" varchar(128) null, \"fee\" varchar(80) null, \"error\" text null, \"created_at\" timestamptz not null, \"updated_at\" timestamptz not null, constraint \"transfers_pkey\" primary key (\"transfer_id\"))");
    this.addSql("create index \"transfers_user_id_index\" on \"transfers\" (\"user_id\")");
    this.addSql("create table \"transfer_keys\" (\"user_id\" varchar(64) not null, \"address\" varchar(42) not null, \"key_sealed\" text not null, \"created_at\" timestamptz not null, constraint \"transfer_keys_pkey\" primary key (\"user_id\"))");
  }
}
