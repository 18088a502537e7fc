import { Migration } from '@mikro-orm/migrations';

export class Migration20261127080000Providers extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table \"bank_consents\" (\"consent_id\" varchar(64) not null, \"user_id\" varchar(64) not null, \"status\" text check (\"status\" in ('pending', 'active', 'failed', 'expired', 'replaced')) not null, \"state_hash\" varchar(64) not null, \"return_uri\" varchar(512) null, \"user_ref\" varchar(64) null, \"access_token_sealed\" text null, \"refresh_token_sealed\" text null, \"scope\" varchar(128) null, \"access_expires_at\" timestamptz null, \"token_version\" int not null default 0, \"return_by\" timestamptz not null, \"failure\" varchar(255) null, \"created_at\" timestamptz not null, \"updated_at\" timestamptz not null, constraint \"bank_consents_pkey\" primary key (\"consent_id\"))");
    this.addSql("create index \"bank_consents_user_id_index\" on \"bank_consents\" (\"user_id\")");
    this.addSql("alter table \"bank_consents\" add constraint \"bank_consents_state_hash_unique\" unique (\"state_hash\")");
    this.addSql("create table \"bank_consent_accounts\" (\"id\" varchar(64) not null, \"consent_id\" varchar(64) not null, \"user_id\" varchar(64) not null, \"rail_account_ref\" varchar(64) not null, \"bank_code\" varchar(3) not null, \"bank_name\" varchar(64) not null, \"account_no_masked\" varchar(32) not null, \"withdrawals_agreed\" boolean not null, constraint \"bank_consent_accounts_pkey\" primary key (\"id\"))");
    this.addSql("create index \"bank_consent_accounts_consent_id_index\" on \"bank_consent_accounts\" (\"consent_id\")");
    this.addSql("create index \"bank_consent_accounts_user_id_index\" on \"bank_consent_accounts\" (\"user_id\")");
    this.addSql("alter table \"bank_consent_accounts\" add constraint \"bank_consent_accounts_consent_id_rail_account_ref_unique\" unique (\"consent_id\", \"rail_account_ref\")");
    this.addSql("create table \"bank_tran_ids\" (\"reference\" varchar(128) not null, \"bank_tran_id\" varchar(20) not null, \"tran_date\" varchar(8) not null, \"direction\" text check (\"direction\" in ('deposit', 'withdrawal', 'inquiry')) not null, \"amount\" bigint not null, \"sent_at\" timestamptz null, \"earlier_ids\" jsonb null, \"created_at\" timestamptz not null, constraint \"bank_tran_ids_pkey\" primary key (\"reference\"))");
    this.addSql("alter table \"bank_tran_ids\" add constraint \"bank_tran_ids_bank_tran_id_unique\" unique (\"bank_tran_id\")");
    this.addSql("create table \"mail_sends\" (\"message_key\" varchar(128) not null, \"message_id\" varchar(255) not null, \"status\" text check (\"status\" in ('sending', 'sent')) not null, \"attempts\" int not null default 0, \"created_at\" timestamptz not null, \"sent_at\" timestamptz null, constraint \"mail_sends_pkey\" primary key (\"message_key\"))");
    this.addSql("alter table \"bank_accounts\" add column \"rail_account_ref\" varchar(64) null, add column \"consent_id\" varchar(64) null");
    this.addSql("alter table \"bank_accounts\" add constraint \"bank_accounts_rail_account_ref_unique\" unique (\"rail_account_ref\")");
    this.addSql("alter table \"uploads\" add column \"reading_sealed\" text null, add column \"check_result\" varchar(32) null");
  }
}
