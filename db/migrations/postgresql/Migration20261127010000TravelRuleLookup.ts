import { Migration } from '@mikro-orm/migrations';

export class Migration20261127010000TravelRuleLookup extends Migration {
  override async up(): Promise<void> {
    // Generated, so every existing row is filled as the column is added, and no writer can leave it stale.
    this.addSql(
      'alter table "smart_accounts" add column "address_lower" varchar(42) generated always as (lower(address)) stored not null',
    );
    this.addSql('create index "smart_accounts_address_lower_index" on "smart_accounts" ("address_lower")');
  }
}
