import { Migration } from '@mikro-orm/migrations';

export class Migration20261202021924Payouts extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table \"payouts\" (\"payout_id\" varchar(64) not null, \"user_id\" varchar(64) not null, \"bank_account_id\" varchar(64) not null, \"bank_code\" varchar(3) not null, \"amount\" bigint not null, \"currency\" varchar(3) not null, \"purpose\" text check (\"purpose\" in ('request', 'closure')) not null, \"status\" text check (\"status\" in ('processing', 'completed', 'failed', 'needs_review')) not null, \"bank_status\" varchar(16) null, \"failure_reason\" varchar(255) null, \"failure_code\" varchar(16) null, \"created_at\" timestamptz not null, \"updated_at\" timestamptz not null, \"completed_at\" timestamptz null, constraint \"payouts_pkey\" primary key (\"payout_id\"))");
    this.addSql("create index \"payouts_user_id_index\" on \"payouts\" (\"user_id\")");
    this.addSql("create index \"payouts_user_id_created_at_index\" on \"payouts\" (\"user_id\", \"created_at\")");
    this.addSql("alter table \"ledger_accounts\" drop constraint if exists \"ledger_accounts_kind_check\"");
    this.addSql("alter table \"ledger_accounts\" add constraint \"ledger_accounts_kind_check\" check(\"kind\" in ('user_balance', 'bank_clearing', 'payouts_in_transit'))");
  }
}
