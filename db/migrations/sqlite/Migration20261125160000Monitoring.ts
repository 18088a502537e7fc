import { Migration } from '@mikro-orm/migrations';

/** SQLite cannot change a check constraint in place: the transfers table is rebuilt with held_for_review allowed. */
export class Migration20261125160000Monitoring extends Migration {
  override async up(): Promise<void> {
    this.addSql("pragma foreign_keys = off");
    this.addSql("create table `transfers__temp_alter` (`transfer_id` text not null, `user_id` text not null, `network_id` text not null, `token` text not null, `decimals` integer not null, `from_address` text not null, `to_address` text not null, `amount` text not null, `user_operation` json null, `user_op_hash` text null, `solana_transaction` json null, `status` text check (`status` in ('held_for_review', 'processing', 'submitted', 'confirmed', 'finalized', 'failed')) not null, `tx_hash` text null, `block_number` bigint null, `block_hash` text null, `value_krw` bigint null, `travel_rule` json null, `fee` text null, `error` text null, `created_at` datetime not null, `updated_at` datetime not null, primary key (`transfer_id`))");
    this.addSql("insert into `transfers__temp_alter` select `transfer_id`, `user_id`, `network_id`, `token`, `decimals`, `from_address`, `to_address`, `amount`, `user_operation`, `user_op_hash`, `solana_transaction`, `status`, `tx_hash`, `block_number`, `block_hash`, `value_krw`, `travel_rule`, `fee`, `error`, `created_at`, `updated_at` from `transfers`");
    this.addSql("drop table `transfers`");
    this.addSql("alter table `transfers__temp_alter` rename to `transfers`");
    this.addSql("create index `transfers_user_id_index` on `transfers` (`user_id`)");
    this.addSql("pragma foreign_keys = on");
    this.addSql("alter table `compliance_cases` add column `detail` text null");
  }
}
