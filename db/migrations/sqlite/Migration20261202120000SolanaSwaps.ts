import { Migration } from '@mikro-orm/migrations';

/** SOLANA swaps: executed with the person's custodial wallet, one row per swap (solana_swaps). */
export class Migration20261202120000SolanaSwaps extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table `solana_swaps` (`swap_id` text not null, `user_id` text not null, `network_id` text not null, `wallet_address` text not null, `details` json not null, `status` text check (`status` in ('submitted', 'completed', 'failed')) not null, `request_id` text null, `wire` text null, `last_valid_block_height` text null, `tx_hash` text null, `fee` text null, `error` text null, `created_at` datetime not null, `updated_at` datetime not null, primary key (`swap_id`))");
    this.addSql("create index `solana_swaps_user_id_index` on `solana_swaps` (`user_id`)");
    this.addSql("create index `solana_swaps_user_id_created_at_index` on `solana_swaps` (`user_id`, `created_at`)");
  }
}
