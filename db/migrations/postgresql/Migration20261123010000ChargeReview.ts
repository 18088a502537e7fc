import { Migration } from '@mikro-orm/migrations';

/** A charge can wait for review (an undocumented bank answer, a refused refund). */
export class Migration20261123010000ChargeReview extends Migration {
  override async up(): Promise<void> {
    this.addSql("alter table \"charges\" drop constraint if exists \"charges_status_check\"");
    this.addSql("alter table \"charges\" add constraint \"charges_status_check\" check(\"status\" in ('processing', 'completed', 'failed', 'needs_review'))");
  }
}
