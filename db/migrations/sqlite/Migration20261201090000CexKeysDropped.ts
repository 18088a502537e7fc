import { Migration } from '@mikro-orm/migrations';

/**
 * Exchange accounts keep no key: a key pair (or OAuth tokens) is used once, to check it and read the balances at
 * connection, and never stored. The column that kept them sealed, unread since, is dropped with what it held.
 */
export class Migration20261201090000CexKeysDropped extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table `cex_accounts` drop column `tokens_sealed`;');
  }
}
