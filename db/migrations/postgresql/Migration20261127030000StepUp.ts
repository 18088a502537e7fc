import { Migration } from '@mikro-orm/migrations';

/**
 * One step-up policy (issue 36): sign-ins double as step-up identity checks (what they approve, when, used once; the
 * passkey that proved a sign-in, so one in its own hold gives a held device), an email change keeps the replaced
 * address for its undo window, and every change of the address is kept (email_changes).
 */
export class Migration20261127030000StepUp extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table "email_changes" ("change_id" varchar(64) not null, "user_id" varchar(64) not null, "previous_email_sealed" text not null, "new_email_sealed" text not null, "undo_until" timestamptz not null, "undone_at" timestamptz null, "created_at" timestamptz not null, constraint "email_changes_pkey" primary key ("change_id"))',
    );
    this.addSql('create index "email_changes_user_id_index" on "email_changes" ("user_id")');
    this.addSql('alter table "sign_ins" drop constraint if exists "sign_ins_method_check"');
    this.addSql(
      'alter table "sign_ins" add column "passkey_id" varchar(64) null, add column "purpose" text null, add column "completed_at" timestamptz null, add column "used_at" timestamptz null, add column "used_idempotency_key" varchar(64) null',
    );
    this.addSql(
      `alter table "sign_ins" add constraint "sign_ins_method_check" check("method" in ('passkey', 'id_card', 'identity'))`,
    );
    this.addSql(
      'alter table "users" add column "previous_email_sealed" text null, add column "previous_email_until" timestamptz null',
    );
  }
}
