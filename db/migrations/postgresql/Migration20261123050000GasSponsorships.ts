import { Migration } from '@mikro-orm/migrations';

/** Gas the paymaster sponsored per user operation: reserved at its most, settled from the chain (daily budgets). */
export class Migration20261123050000GasSponsorships extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table \"gas_sponsorships\" (\"sponsorship_id\" varchar(128) not null, \"user_id\" varchar(64) not null, \"network_id\" varchar(32) not null, \"user_op_hash\" varchar(66) not null, \"paymaster_and_data\" text not null, \"max_cost_wei\" varchar(80) not null, \"actual_cost_wei\" varchar(80) null, \"price_krw_centi\" bigint not null, \"status\" text check (\"status\" in ('reserved', 'settled', 'released')) not null, \"from_block\" int not null, \"valid_until\" timestamptz not null, \"tx_hash\" varchar(66) null, \"created_at\" timestamptz not null, \"updated_at\" timestamptz not null, constraint \"gas_sponsorships_pkey\" primary key (\"sponsorship_id\"))");
    this.addSql("create index \"gas_sponsorships_user_id_index\" on \"gas_sponsorships\" (\"user_id\")");
    this.addSql("create index \"gas_sponsorships_created_at_index\" on \"gas_sponsorships\" (\"created_at\")");
  }
}
