import { Migration } from '@mikro-orm/migrations';

/** Verifications in the identity provider's window (IDENTITY_PROVIDER=nice): db/entities/identity-request.ts. */
export class Migration20261203120000IdentityRequests extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table `identity_requests` (`id` text not null, `provider` text not null, `token_version_id` text not null, `seed_sealed` text not null, `code_challenge` text not null, `code_hash` text null, `pass_token_hash` text null, `pass_token_sealed` text null, `expires_at` datetime not null, `returned_at` datetime null, `result_code` text null, `created_at` datetime not null, primary key (`id`));',
    );
    this.addSql(
      'create unique index `identity_requests_token_version_id_unique` on `identity_requests` (`token_version_id`);',
    );
    this.addSql('create unique index `identity_requests_pass_token_hash_unique` on `identity_requests` (`pass_token_hash`);');
  }
}
