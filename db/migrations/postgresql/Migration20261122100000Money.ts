import { Migration } from '@mikro-orm/migrations';

export class Migration20261122100000Money extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table \"bank_accounts\" (\"bank_account_id\" varchar(64) not null, \"user_id\" varchar(64) not null, \"bank_code\" varchar(3) not null, \"bank_name\" varchar(64) not null, \"account_no_sealed\" text not null, \"account_no_hash\" varchar(64) not null, \"masked_account_no\" varchar(32) not null, \"currency\" varchar(3) not null, \"connected_at\" timestamptz not null, constraint \"bank_accounts_pkey\" primary key (\"bank_account_id\"))");
    this.addSql("create index \"bank_accounts_user_id_index\" on \"bank_accounts\" (\"user_id\")");
    this.addSql("alter table \"bank_accounts\" add constraint \"bank_accounts_user_id_bank_code_account_no_hash_unique\" unique (\"user_id\", \"bank_code\", \"account_no_hash\")");
    this.addSql("create table \"bank_verifications\" (\"verification_id\" varchar(64) not null, \"user_id\" varchar(64) not null, \"bank_code\" varchar(3) not null, \"account_no_sealed\" text not null, \"account_no_hash\" varchar(64) not null, \"code_hash\" varchar(64) not null, \"attempts\" int not null default 0, \"status\" text check (\"status\" in ('pending', 'verified', 'failed', 'expired')) not null, \"session_id\" varchar(128) null, \"expires_at\" timestamptz not null, \"created_at\" timestamptz not null, \"updated_at\" timestamptz not null, constraint \"bank_verifications_pkey\" primary key (\"verification_id\"))");
    this.addSql("create index \"bank_verifications_user_id_index\" on \"bank_verifications\" (\"user_id\")");
    this.addSql("create table \"charges\" (\"charge_id\" varchar(64) not null, \"user_id\" varchar(64) not null, \"bank_account_id\" varchar(64) not null, \"bank_code\" varchar(3) not null, \"amount\" bigint not null, \"currency\" varchar(3) not null, \"status\" text check (\"status\" in ('processing', 'completed', 'failed')) not null, \"bank_status\" varchar(16) null, \"failure_reason\" varchar(255) null, \"created_at\" timestamptz not null, \"updated_at\" timestamptz not null, \"completed_at\" timestamptz null, constraint \"charges_pkey\" primary key (\"charge_id\"))");
    this.addSql("create index \"charges_user_id_index\" on \"charges\" (\"user_id\")");
    this.addSql("create table \"ledger_accounts\" (\"account_id\" varchar(128) not null, \"user_id\" varchar(64) null, \"kind\" text check (\"kind\" in ('user_balance', 'bank_clearing')) not null, \"currency\" varchar(8) not null, \"balance\" bigint not null default 0, \"updated_at\" timestamptz not null, constraint \"ledger_accounts_pkey\" primary key (\"account_id\"))");
    this.addSql("create index \"ledger_accounts_user_id_index\" on \"ledger_accounts\" (\"user_id\")");
    this.addSql("create table \"ledger_entries\" (\"id\" serial primary key, \"journal_id\" varchar(128) not null, \"account_id\" varchar(128) not null, \"amount\" bigint not null, \"currency\" varchar(8) not null, \"posted_at\" timestamptz not null)");
    this.addSql("create index \"ledger_entries_journal_id_index\" on \"ledger_entries\" (\"journal_id\")");
    this.addSql("create index \"ledger_entries_account_id_index\" on \"ledger_entries\" (\"account_id\")");
    this.addSql("alter table \"ledger_entries\" add constraint \"ledger_entries_journal_id_account_id_unique\" unique (\"journal_id\", \"account_id\")");
    this.addSql("create table \"ledger_journals\" (\"journal_id\" varchar(128) not null, \"kind\" varchar(32) not null, \"user_id\" varchar(64) null, \"reference\" varchar(64) not null, \"posted_at\" timestamptz not null, constraint \"ledger_journals_pkey\" primary key (\"journal_id\"))");
    this.addSql("create index \"ledger_journals_user_id_index\" on \"ledger_journals\" (\"user_id\")");
  }
}
