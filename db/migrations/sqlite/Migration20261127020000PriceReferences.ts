import { Migration } from '@mikro-orm/migrations';

export class Migration20261127020000PriceReferences extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table `price_references` (`asset` text not null, `centi` bigint not null, `set_at` datetime not null, primary key (`asset`))");
  }
}
