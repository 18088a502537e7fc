import { Migration } from '@mikro-orm/migrations';

export class Migration20261127020000PriceReferences extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table \"price_references\" (\"asset\" varchar(16) not null, \"centi\" bigint not null, \"set_at\" timestamptz not null, constraint \"price_references_pkey\" primary key (\"asset\"))");
  }
}
