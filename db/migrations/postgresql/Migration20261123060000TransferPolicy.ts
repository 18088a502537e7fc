import { Migration } from '@mikro-orm/migrations';

/**
 * The address book (recipients approved by cooling-off or passkey; recipients of earlier confirmed transfers carried
 * over), a per-user passkey threshold, and transfer finality (submitted, finalized; the including block).
 */
export class Migration20261123060000TransferPolicy extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table \"address_book\" (\"user_id\" varchar(64) not null, \"network_id\" varchar(32) not null, \"address\" varchar(64) not null, \"approved_by\" text check (\"approved_by\" in ('cooling-off', 'passkey', 'history')) not null, \"added_at\" timestamptz not null, \"usable_from\" timestamptz not null, constraint \"address_book_pkey\" primary key (\"user_id\", \"network_id\", \"address\"))");
    this.addSql("insert into \"address_book\" (\"user_id\", \"network_id\", \"address\", \"approved_by\", \"added_at\", \"usable_from\") select \"user_id\", \"network_id\", \"to_address\", 'history', min(\"created_at\"), min(\"created_at\") from \"transfers\" where \"status\" = 'confirmed' group by \"user_id\", \"network_id\", \"to_address\"");
    this.addSql("alter table \"spending_limits\" add column \"passkey_above_krw\" bigint null");
    this.addSql("alter table \"transfers\" drop constraint if exists \"transfers_status_check\"");
    this.addSql("alter table \"transfers\" add column \"block_number\" bigint null, add column \"block_hash\" varchar(66) null");
    this.addSql("alter table \"transfers\" add constraint \"transfers_status_check\" check(\"status\" in ('processing', 'submitted', 'confirmed', 'finalized', 'failed'))");
  }
}
