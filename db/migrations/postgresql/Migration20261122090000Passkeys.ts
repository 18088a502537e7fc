import { Migration } from '@mikro-orm/migrations';

export class Migration20261122090000Passkeys extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table \"passkeys\" (\"passkey_id\" varchar(64) not null, \"user_id\" varchar(64) not null, \"credential_id\" varchar(1400) not null, \"public_key\" text not null, \"sign_count\" bigint not null, \"transports\" jsonb not null, \"device_type\" varchar(16) not null, \"backed_up\" boolean not null, \"name\" varchar(64) not null, \"created_at\" timestamptz not null, \"last_used_at\" timestamptz null, constraint \"passkeys_pkey\" primary key (\"passkey_id\"))");
    this.addSql("create index \"passkeys_user_id_index\" on \"passkeys\" (\"user_id\")");
    this.addSql("alter table \"passkeys\" add constraint \"passkeys_credential_id_unique\" unique (\"credential_id\")");
    this.addSql("create table \"verifiable_credentials\" (\"vc_id\" varchar(64) not null, \"user_id\" varchar(64) not null, \"type\" varchar(64) not null, \"source_key\" varchar(160) not null, \"document_sealed\" text not null, \"valid_from\" timestamptz not null, \"valid_until\" timestamptz not null, \"issued_at\" timestamptz not null, constraint \"verifiable_credentials_pkey\" primary key (\"vc_id\"))");
    this.addSql("create index \"verifiable_credentials_user_id_index\" on \"verifiable_credentials\" (\"user_id\")");
    this.addSql("alter table \"verifiable_credentials\" add constraint \"verifiable_credentials_source_key_unique\" unique (\"source_key\")");
    this.addSql("create table \"webauthn_challenges\" (\"challenge_id\" varchar(64) not null, \"user_id\" varchar(64) not null, \"challenge\" varchar(128) not null, \"expires_at\" timestamptz not null, \"used_at\" timestamptz null, constraint \"webauthn_challenges_pkey\" primary key (\"challenge_id\"))");
    this.addSql("create index \"webauthn_challenges_user_id_index\" on \"webauthn_challenges\" (\"user_id\")");
  }
}
