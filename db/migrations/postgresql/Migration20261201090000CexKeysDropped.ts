import { Migration } from '@mikro-orm/migrations';

/**
 * Exchange accounts keep no key: a key pair (or OAuth tokens) is used once, to check it and read the balances at
 * connection, and never stored. The column that kept them sealed, unread since, is emptied and dropped (the old
 * row versions go with the next vacuum; copies of the database made before still hold the sealed keys).
 */
export class Migration20261201090000CexKeysDropped extends Migration {
  override async up(): Promise<void> {
    // Overwritten first: a dropped column's values stay in the table's rows until they are rewritten.
    this.addSql(`update "cex_accounts" set "tokens_sealed" = '';`);
    this.addSql('alter table "cex_accounts" drop column "tokens_sealed";');
  }
}
