import { Migration } from '@mikro-orm/migrations';

/** Transfer limits per user in won, and the won value of each transfer at request time. */
export class Migration20261123040000SpendingLimits extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table `spending_limits` (`user_id` text not null, `per_transfer_krw` bigint not null, `daily_krw` bigint not null, `updated_at` datetime not null, primary key (`user_id`))");
    this.addSql("alter table `transfers` add column `value_krw` bigint null");
  }
}
