import { Migration } from '@mikro-orm/migrations';

/** Verifications in the identity provider's window (IDENTITY_PROVIDER=nice): db/entities/identity-request.ts. */
export class Migration20261203120000IdentityRequests extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table "identity_requests" ("id" varchar(30) not null, "provider" varchar(16) not null, "token_version_id" varchar(128) not null, "seed_sealed" text not null, "code_challenge" varchar(64) not null, "code_hash" varchar(64) null, "pass_token_hash" varchar(64) null, "pass_token_sealed" text null, "expires_at" timestamptz not null, "returned_at" timestamptz null, "result_code" varchar(8) null, "created_at" timestamptz not null, constraint "identity_requests_pkey" primary key ("id"));',
    );
    this.addSql(
      'alter table "identity_requests" add constraint "identity_requests_token_version_id_unique" unique ("token_version_id");',
    );
    this.addSql(
      'alter table "identity_requests" add constraint "identity_requests_pass_token_hash_unique" unique ("pass_token_hash");',
    );
  }
}
