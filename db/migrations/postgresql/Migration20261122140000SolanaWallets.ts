import { Migration } from '@mikro-orm/migrations';

export class Migration20261122140000SolanaWallets extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table \"solana_wallets\" (\"user_id\" varchar(64) not null, \"address\" varchar(44) not null, \"key_sealed\" text not null, \"created_at\" timestamptz not null, constraint \"solana_wallets_pkey\" primary key (\"user_id\"))");
    this.addSql("alter table \"solana_wallets\" add constraint \"solana_wallets_address_unique\" unique (\"address\")");
    this.addSql("alter table \"transfers\" add column \"solana_transaction\" jsonb null");
    this.addSql("alter table \"transfers\" alter column \"user_operation\" type jsonb using (\"user_operation\"::jsonb)");
    this.addSql("alter table \"transfers\" alter column \"user_operation\" drop not null");
    this.addSql("alter table \"transfers\" alter column \"user_op_hash\" type varchar(66) using (\"user_op_hash\"::varchar(66))");
    this.addSql("alter table \"transfers\" alter column \"user_op_hash\" drop not null");
  }
}
