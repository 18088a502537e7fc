import { Migration } from '@mikro-orm/migrations';

export class Migration20261125110000Devices extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table \"account_backups\" (\"id\" varchar(64) not null, \"user_id\" varchar(64) not null, \"version\" int not null, \"encrypted_mnemonic\" text not null, \"encrypted_derivation_paths\" text not null, \"encryption_method\" varchar(64) not null, \"device_id\" varchar(64) null, \"created_at\" timestamptz not null, constraint \"account_backups_pkey\" primary key (\"id\"))");
    this.addSql("alter table \"account_backups\" add constraint \"account_backups_user_id_version_unique\" unique (\"user_id\", \"version\")");
    this.addSql("create table \"devices\" (\"id\" varchar(64) not null, \"user_id\" varchar(64) not null, \"device_id\" varchar(64) not null, \"label\" varchar(64) null, \"session_id\" varchar(64) not null, \"sign_in_method\" text check (\"sign_in_method\" in ('registration', 'passkey', 'id_card')) not null, \"hold_until\" timestamptz null, \"first_seen_at\" timestamptz not null, \"signed_in_at\" timestamptz not null, \"last_used_at\" timestamptz not null, \"revoked_at\" timestamptz null, constraint \"devices_pkey\" primary key (\"id\"))");
    this.addSql("alter table \"devices\" add constraint \"devices_user_id_device_id_unique\" unique (\"user_id\", \"device_id\")");
    this.addSql("create table \"sign_ins\" (\"sign_in_id\" varchar(64) not null, \"pass_request_id\" varchar(128) not null, \"user_id\" varchar(64) not null, \"device_id\" varchar(64) null, \"device_label\" varchar(64) null, \"pass_token_hash\" varchar(64) null, \"pass_token_expires_at\" timestamptz null, \"status\" text check (\"status\" in ('in_progress', 'completed', 'failed', 'expired')) not null default 'in_progress', \"method\" text check (\"method\" in ('passkey', 'id_card')) null, \"tokens_issued_at\" timestamptz null, \"created_at\" timestamptz not null, \"updated_at\" timestamptz not null, constraint \"sign_ins_pkey\" primary key (\"sign_in_id\"))");
    this.addSql("alter table \"sign_ins\" add constraint \"sign_ins_pass_request_id_unique\" unique (\"pass_request_id\")");
    this.addSql("create index \"sign_ins_user_id_index\" on \"sign_ins\" (\"user_id\")");
    this.addSql("alter table \"users\" add column \"id_card_hash\" varchar(64) null");
    // Every registered user's registering device becomes their first device (\"legacy\" session: access tokens issued
    // before devices existed name none, and stay valid until that device signs in again or is revoked).
    this.addSql("insert into \"devices\" (\"id\", \"user_id\", \"device_id\", \"label\", \"session_id\", \"sign_in_method\", \"hold_until\", \"first_seen_at\", \"signed_in_at\", \"last_used_at\", \"revoked_at\") select 'dev_' || \"id\", \"id\", \"device_id\", null, 'legacy', 'registration', null, \"registered_at\", \"registered_at\", \"registered_at\", null from \"users\"");
    // The registration's backup becomes version 1 of the account's backup.
    this.addSql("insert into \"account_backups\" (\"id\", \"user_id\", \"version\", \"encrypted_mnemonic\", \"encrypted_derivation_paths\", \"encryption_method\", \"device_id\", \"created_at\") select b.\"id\", u.\"id\", 1, b.\"encrypted_mnemonic\", b.\"encrypted_derivation_paths\", b.\"encryption_method\", null, b.\"created_at\" from \"wallet_backups\" b join \"users\" u on u.\"reg_id\" = b.\"reg_id\"");
  }
}
