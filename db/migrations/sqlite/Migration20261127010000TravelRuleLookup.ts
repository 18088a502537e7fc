import { Migration } from '@mikro-orm/migrations';

export class Migration20261127010000TravelRuleLookup extends Migration {
  override async up(): Promise<void> {
    // SQLite cannot add a stored generated column to a table; a virtual one is computed from each row, existing rows
    // included, and its index is kept like any other.
    this.addSql(
      'alter table `smart_accounts` add column `address_lower` text generated always as (lower(address)) virtual',
    );
    this.addSql('create index `smart_accounts_address_lower_index` on `smart_accounts` (`address_lower`)');
  }
}
