import { Migration } from '@mikro-orm/migrations';

export class Migration20261124090102EmailVerification extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table \"email_verifications\" (\"verification_id\" varchar(64) not null, \"user_id\" varchar(64) not null, \"email_sealed\" text not null, \"code_hash\" varchar(64) not null, \"attempts\" int not null default 0, \"status\" text check (\"status\" in ('pending', 'verified', 'failed')) not null, \"expires_at\" timestamptz not null, \"created_at\" timestamptz not null, constraint \"email_verifications_pkey\" primary key (\"verification_id\"))");
    this.addSql("create index \"email_verifications_user_id_index\" on \"email_verifications\" (\"user_id\")");
    // The always-empty plain `email` gives way to the sealed address and the time it was verified.
    this.addSql("alter table \"users\" drop column \"email\"");
    this.addSql("alter table \"users\" add column \"email_sealed\" text null, add column \"email_verified_at\" timestamptz null");
  }
}
