import { Migration } from '@mikro-orm/migrations';

/**
 * The address book (recipients approved by cooling-off or passkey; recipients of earlier confirmed transfers carried
 * over), a per-user passkey threshold, and transfer finality (submitted, finalized; the including block). SQLite
 * rebuilds the transfers table for its check.
 */
export class Migration20261123060000TransferPolicy extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table `address_book` (`user_id` text not null, `network_id` text not null, `address` text not null, `approved_by` text check (`approved_by` in ('cooling-off', 'passkey', 'history')) not null, `added_at` datetime not null, `usable_from` datetime not null, primary key (`user_id`, `network_id`, `address`))");
    this.addSql("insert into `address_book` (`user_id`, `network_id`, `address`, `approved_by`, `added_at`, `usable_from`) select `user_id`, `network_id`, `to_address`, 'history', min(`created_at`), min(`created_at`) from `transfers` where `status` = 'confirmed' group by `user_id`, `network_id`, `to_address`");
    this.addSql("alter table `spending_limits` add column `passkey_above_krw` bigint null");
    this.addSql("create table `transfers__temp_alter` (`transfer_id` text not null, `user_id` text not null, `network_id` text not null, `token` text not null, `decimals` integer not null, `from_address` text not null, `to_address` text not null, `amount` text not null, `user_operation` json null, `user_op_hash` text null, `solana_transaction` json null, `status` text check (`status` in ('processing', 'submitted', 'confirmed', 'finalized', 'failed')) not null, `tx_hash` text null, `block_number` bigint null, `block_hash` text null, `fee` text null, `error` text null, `created_at` datetime not null, `updated_at` datetime not null, `value_krw` bigint null, primary key (`transfer_id`))");
    this.addSql("insert into `transfers__temp_alter` (`transfer_id`, `user_id`, `network_id`, `token`, `decimals`, `from_address`, `to_address`, `amount`, `user_operation`, `user_op_hash`, `solana_transaction`, `status`, `tx_hash`, `fee`, `error`, `created_at`, `updated_at`, `value_krw`) select `transfer_id`, `user_id`, `network_id`, `token`, `decimals`, `from_address`, `to_address`, `amount`, `user_operation`, `user_op_hash`, `solana_transaction`, `status`, `tx_hash`, `fee`, `error`, `created_at`, `updated_at`, `value_krw` from `transfers`");
    this.addSql("drop table `transfers`");
    this.addSql("alter table `transfers__temp_alter` rename to `transfers`");
    this.addSql("create index `transfers_user_id_index` on `transfers` (`user_id`)");
  }
}
