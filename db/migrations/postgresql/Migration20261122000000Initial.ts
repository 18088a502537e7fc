import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000000Initial extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table \"idempotency_records\" (\"id\" serial primary key, \"scope\" varchar(128) not null, \"key\" varchar(64) not null, \"fingerprint\" varchar(64) not null, \"state\" text check (\"state\" in ('in_progress', 'completed')) not null, \"response_status\" int null, \"response_body\" text null, \"response_headers\" jsonb null, \"created_at\" timestamptz not null, \"expires_at\" timestamptz not null)");
    this.addSql("create index \"idempotency_records_expires_at_index\" on \"idempotency_records\" (\"expires_at\")");
    this.addSql("alter table \"idempotency_records\" add constraint \"idempotency_records_scope_key_unique\" unique (\"scope\", \"key\")");
    this.addSql("create table \"kyc_basic_info\" (\"user_id\" varchar(64) not null, \"kyc_session_id\" varchar(128) null, \"full_name_sealed\" text not null, \"eng_surname\" varchar(128) not null, \"eng_name\" varchar(128) not null, \"nationality\" varchar(2) not null, \"submitted_at\" timestamptz not null, constraint \"kyc_basic_info_pkey\" primary key (\"user_id\"))");
    this.addSql("create table \"refresh_tokens\" (\"id\" varchar(64) not null, \"token_hash\" varchar(64) not null, \"user_id\" varchar(64) not null, \"device_id\" varchar(64) not null, \"family_id\" varchar(64) not null, \"expires_at\" timestamptz not null, \"revoked_at\" timestamptz null, \"created_at\" timestamptz not null, constraint \"refresh_tokens_pkey\" primary key (\"id\"))");
    this.addSql("alter table \"refresh_tokens\" add constraint \"refresh_tokens_token_hash_unique\" unique (\"token_hash\")");
    this.addSql("create index \"refresh_tokens_user_id_index\" on \"refresh_tokens\" (\"user_id\")");
    this.addSql("create index \"refresh_tokens_family_id_index\" on \"refresh_tokens\" (\"family_id\")");
    this.addSql("create table \"registrations\" (\"reg_id\" varchar(64) not null, \"pass_request_id\" varchar(128) not null, \"status\" text check (\"status\" in ('in_progress', 'completed', 'failed', 'expired')) not null default 'in_progress', \"step\" varchar(32) not null, \"pass_result_sealed\" text null, \"ci_hash\" varchar(64) null, \"device_id\" varchar(64) null, \"pass_token_hash\" varchar(64) null, \"pass_token_expires_at\" timestamptz null, \"ocr_result\" jsonb null, \"backup_id\" varchar(64) null, \"user_id\" varchar(64) null, \"created_at\" timestamptz not null, \"updated_at\" timestamptz not null, constraint \"registrations_pkey\" primary key (\"reg_id\"))");
    this.addSql("alter table \"registrations\" add constraint \"registrations_pass_request_id_unique\" unique (\"pass_request_id\")");
    this.addSql("create table \"uploads\" (\"id\" varchar(64) not null, \"reg_id\" varchar(64) not null, \"content_type\" varchar(64) not null, \"size_bytes\" int not null, \"sha256\" varchar(64) not null, \"data_sealed\" bytea not null, \"created_at\" timestamptz not null, constraint \"uploads_pkey\" primary key (\"id\"))");
    this.addSql("create index \"uploads_reg_id_index\" on \"uploads\" (\"reg_id\")");
    this.addSql("create table \"users\" (\"id\" varchar(64) not null, \"reg_id\" varchar(64) not null, \"ci_hash\" varchar(64) not null, \"name_sealed\" text not null, \"phone_sealed\" text not null, \"masked_phone\" varchar(32) not null, \"email\" varchar(255) null, \"status\" text check (\"status\" in ('active', 'suspended', 'closed')) not null default 'active', \"wallet_type\" varchar(32) not null, \"device_id\" varchar(64) not null, \"registered_at\" timestamptz not null, constraint \"users_pkey\" primary key (\"id\"))");
    this.addSql("alter table \"users\" add constraint \"users_reg_id_unique\" unique (\"reg_id\")");
    this.addSql("alter table \"users\" add constraint \"users_ci_hash_unique\" unique (\"ci_hash\")");
    this.addSql("create table \"wallet_backups\" (\"id\" varchar(64) not null, \"reg_id\" varchar(64) not null, \"encrypted_mnemonic\" text not null, \"encrypted_derivation_paths\" text not null, \"encryption_method\" varchar(64) not null, \"created_at\" timestamptz not null, constraint \"wallet_backups_pkey\" primary key (\"id\"))");
    this.addSql("alter table \"wallet_backups\" add constraint \"wallet_backups_reg_id_unique\" unique (\"reg_id\")");
  }
}
