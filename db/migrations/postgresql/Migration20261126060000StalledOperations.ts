import { Migration } from '@mikro-orm/migrations';

export class Migration20261126060000StalledOperations extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "signed_operations" drop constraint if exists "signed_operations_status_check"');
    this.addSql(
      `alter table "signed_operations" add constraint "signed_operations_status_check" check("status" in ('prepared', 'submitted', 'stalled', 'completed', 'failed', 'replaced'))`,
    );
    this.addSql('alter table "signed_operations" add column "stall_reason" varchar(32) null');
    this.addSql('alter table "signed_operations" add column "replaced_by" varchar(64) null');
    this.addSql('alter table "key_rotation_networks" drop constraint if exists "key_rotation_networks_status_check"');
    this.addSql(
      `alter table "key_rotation_networks" add constraint "key_rotation_networks_status_check" check("status" in ('prepared', 'processing', 'stalled', 'completed', 'failed'))`,
    );
    this.addSql('alter table "transfers" add column "replaced_operations" jsonb null');
  }
}
