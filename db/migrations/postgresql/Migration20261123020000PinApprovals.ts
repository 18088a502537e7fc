import { Migration } from '@mikro-orm/migrations';

/** Encrypted PINs approve one request once: their jti (keyed hash) is recorded when used. */
export class Migration20261123020000PinApprovals extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table \"pin_approvals\" (\"jti_hash\" varchar(64) not null, \"user_id\" varchar(64) not null, \"idempotency_key\" varchar(64) null, \"expires_at\" timestamptz not null, \"created_at\" timestamptz not null, constraint \"pin_approvals_pkey\" primary key (\"jti_hash\"))");
    this.addSql("create index \"pin_approvals_user_id_index\" on \"pin_approvals\" (\"user_id\")");
    this.addSql("create index \"pin_approvals_expires_at_index\" on \"pin_approvals\" (\"expires_at\")");
  }
}
