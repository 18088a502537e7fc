import { Migration } from '@mikro-orm/migrations';

/** SQLite cannot drop NOT NULL in place: transfers is rebuilt with user_operation and user_op_hash nullable. */
export class Migration20261122140000SolanaWallets extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table `solana_wallets` (`user_id` text not null, `address` text not null, `key_sealed` text not null, `created_at` datetime not null, primary key (`user_id`))");
    this.addSql("create unique index `solana_wallets_address_unique` on `solana_wallets` (`address`)");
    this.addSql("create table `transfers__temp_alter` (`transfer_id` text not null, `user_id` text not null, `network_id` text not null, `token` text not null, `decimals` integer not null, `from_address` text not null, `to_address` text not null, `amount` text not null, `user_operation` json null, `user_op_hash` text null, `solana_transaction` json null, `status` text check (`status` in ('processing', 'confirmed', 'failed')) not null, `tx_hash` text null, `fee` text null, `error` text null, `created_at` datetime not null, `updated_at` datetime not null, primary key (`transfer_id`))");
    this.addSql("insert into `transfers__temp_alter` (`transfer_id`, `user_id`, `network_id`, `token`, `decimals`, `from_address`, `to_address`, `amount`, `user_operation`, `user_op_hash`, `status`, `tx_hash`, `fee`, `error`, `created_at`, `updated_at`) select `transfer_id`, `user_id`, `network_id`, `token`, `decimals`, `from_address`, `to_address`, `amount`, `user_operation`, `user_op_hash`, `status`, `tx_hash`, `fee`, `error`, `created_at`, `updated_at` from `transfers`");
    this.addSql("drop table `transfers`");
    this.addSql("alter table `transfers__temp_alter` rename to `transfers`");
    this.addSql("create index `transfers_user_id_index` on `transfers` (`user_id`)");
  }
}
