import { Migration } from '@mikro-orm/migrations';

export class Migration20261122070000KeyRotation extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table \"key_rotation_networks\" (\"id\" serial primary key, \"task_id\" varchar(64) not null, \"network_id\" varchar(32) not null, \"account_address\" varchar(42) not null, \"user_operation\" jsonb not null, \"user_op_hash\" varchar(66) not null, \"proof\" jsonb not null, \"status\" text check (\"status\" in ('prepared', 'processing', 'completed', 'failed')) not null, \"tx_hash\" varchar(66) null, \"error\" text null, \"retryable\" boolean not null default false, \"updated_at\" timestamptz not null)");
    this.addSql("create index \"key_rotation_networks_task_id_index\" on \"key_rotation_networks\" (\"task_id\")");
    this.addSql("alter table \"key_rotation_networks\" add constraint \"key_rotation_networks_task_id_network_id_unique\" unique (\"task_id\", \"network_id\")");
    this.addSql("create table \"key_rotation_tasks\" (\"task_id\" varchar(64) not null, \"user_id\" varchar(64) not null, \"old_owner_address\" varchar(42) not null, \"new_owner_address\" varchar(42) not null, \"root\" varchar(66) not null, \"root_signature\" varchar(140) null, \"status\" text check (\"status\" in ('prepared', 'processing', 'completed', 'partial_failure')) not null, \"expires_at\" timestamptz not null, \"created_at\" timestamptz not null, \"updated_at\" timestamptz not null, constraint \"key_rotation_tasks_pkey\" primary key (\"task_id\"))");
    this.addSql("create index \"key_rotation_tasks_user_id_index\" on \"key_rotation_tasks\" (\"user_id\")");
  }
}
