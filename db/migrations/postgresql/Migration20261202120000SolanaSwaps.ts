import { Migration } from '@mikro-orm/migrations';

/** SOLANA swaps: executed with the person's custodial wallet, one row per swap (solana_swaps). */
export class Migration20261202120000SolanaSwaps extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table \"solana_swaps\" (\"swap_id\" varchar(64) not null, \"user_id\" varchar(64) not null, \"network_id\" varchar(32) not null, \"wallet_address\" varchar(44) not null, \"details\" jsonb not null, \"status\" text check (\"status\" in ('submitted', 'completed', 'failed')) not null, \"request_id\" varchar(64) null, \"wire\" text null, \"last_valid_block_height\" varchar(20) null, \"tx_hash\" varchar(88) null, \"fee\" varchar(20) null, \"error\" text null, \"created_at\" timestamptz not null, \"updated_at\" timestamptz not null, constraint \"solana_swaps_pkey\" primary key (\"swap_id\"))");
    this.addSql("create index \"solana_swaps_user_id_index\" on \"solana_swaps\" (\"user_id\")");
    this.addSql("create index \"solana_swaps_user_id_created_at_index\" on \"solana_swaps\" (\"user_id\", \"created_at\")");
  }
}
