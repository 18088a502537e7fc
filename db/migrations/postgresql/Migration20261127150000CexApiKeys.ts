import { Migration } from '@mikro-orm/migrations';

/** Exchange accounts connected with an API key pair (Upbit, Bithumb) beside the deprecated OAuth ones. */
export class Migration20261127150000CexApiKeys extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "cex_accounts" add column "auth_method" text check ("auth_method" in ('oauth2', 'api_key')) not null default 'oauth2'`,
    );
  }
}
