import { Migration } from '@mikro-orm/migrations';

/** Gas the paymaster sponsored per user operation: reserved at its most, settled from the chain (daily budgets). */
export class Migration20261123050000GasSponsorships extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table `gas_sponsorships` (`sponsorship_id` text not null, `user_id` text not null, `network_id` text not null, `user_op_hash` text not null, `paymaster_and_data` text not null, `max_cost_wei` text not null, `actual_cost_wei` text null, `price_krw_centi` bigint not null, `status` text check (`status` in ('reserved', 'settled', 'released')) not null, `from_block` integer not null, `valid_until` datetime not null, `tx_hash` text null, `created_at` datetime not null, `updated_at` datetime not null, primary key (`sponsorship_id`))");
    this.addSql("create index `gas_sponsorships_user_id_index` on `gas_sponsorships` (`user_id`)");
    this.addSql("create index `gas_sponsorships_created_at_index` on `gas_sponsorships` (`created_at`)");
  }
}
