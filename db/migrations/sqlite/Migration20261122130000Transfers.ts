import { Migration } from '@mikro-orm/migrations';

export class Migration20261122130000Transfers extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table `transfers` (`transfer_id` text not null, `user_id` text not null, `network_id` text not null, `token` text not null, `decimals` integer not null, `from_address` text not null, `to_address` text not null, `amount` text not null, `user_operation` json not null, `user_op_hash` text not null, `status` text check (`status` in ('processing', 'confirmed', 'failed')) not null, `tx_hash` text null, `fee` text null, `error` text null, `created_at` datetime not null, `updated_at` datetime not null, primary key (`transfer_id`))");
    this.addSql("create index `transfers_user_id_index` on `transfers` (`user_id`)");
    this.addSql("create table `transfer_keys` (`user_id` text not null, `address` text not null, `key_sealed` text not null, `created_at` datetime not null, primary key (`user_id`))");
  }
}
