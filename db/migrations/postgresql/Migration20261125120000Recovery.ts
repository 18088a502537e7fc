import { Migration } from '@mikro-orm/migrations';

export class Migration20261125120000Recovery extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table \"recoveries\" (\"recovery_id\" varchar(64) not null, \"user_id\" varchar(64) not null, \"new_owner_address\" varchar(42) not null, \"device_id\" varchar(64) not null, \"status\" text check (\"status\" in ('scheduling', 'scheduled', 'executed', 'cancelled', 'partial', 'failed')) not null, \"created_at\" timestamptz not null, \"updated_at\" timestamptz not null, constraint \"recoveries_pkey\" primary key (\"recovery_id\"))");
    this.addSql("create index \"recoveries_user_id_index\" on \"recoveries\" (\"user_id\")");
    this.addSql("create table \"recovery_networks\" (\"id\" varchar(64) not null, \"recovery_id\" varchar(64) not null, \"network_id\" varchar(32) not null, \"account_address\" varchar(42) not null, \"status\" text check (\"status\" in ('pending', 'scheduled', 'executed', 'cancelled', 'not_recoverable', 'failed')) not null, \"execute_after\" timestamptz null, \"schedule_tx_hash\" varchar(66) null, \"execute_tx_hash\" varchar(66) null, \"error\" text null, \"updated_at\" timestamptz not null, constraint \"recovery_networks_pkey\" primary key (\"id\"))");
    this.addSql("create index \"recovery_networks_recovery_id_index\" on \"recovery_networks\" (\"recovery_id\")");
    this.addSql("alter table \"recovery_networks\" add constraint \"recovery_networks_recovery_id_network_id_unique\" unique (\"recovery_id\", \"network_id\")");
    this.addSql("alter table \"signed_operations\" drop constraint if exists \"signed_operations_kind_check\"");
    this.addSql("alter table \"signed_operations\" add constraint \"signed_operations_kind_check\" check(\"kind\" in ('deploy', 'did_key', 'transfer_key', 'account_upgrade', 'recovery_cancel'))");
  }
}
