import { Migration } from '@mikro-orm/migrations';

export class Migration20261125160000Monitoring extends Migration {
  override async up(): Promise<void> {
    this.addSql("alter table \"transfers\" drop constraint if exists \"transfers_status_check\"");
    this.addSql("alter table \"compliance_cases\" add column \"detail\" text null");
    this.addSql("alter table \"transfers\" add constraint \"transfers_status_check\" check(\"status\" in ('held_for_review', 'processing', 'submitted', 'confirmed', 'finalized', 'failed'))");
  }
}
