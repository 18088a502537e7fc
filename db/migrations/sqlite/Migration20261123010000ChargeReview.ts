import { Migration } from '@mikro-orm/migrations';

/** A charge can wait for review (an undocumented bank answer, a refused refund). SQLite rebuilds the table for its check. */
export class Migration20261123010000ChargeReview extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table `charges__temp_alter` (`charge_id` text not null, `user_id` text not null, `bank_account_id` text not null, `bank_code` text not null, `amount` bigint not null, `currency` text not null, `status` text check (`status` in ('processing', 'completed', 'failed', 'needs_review')) not null, `bank_status` text null, `failure_reason` text null, `created_at` datetime not null, `updated_at` datetime not null, `completed_at` datetime null, primary key (`charge_id`))");
    this.addSql("insert into `charges__temp_alter` (`charge_id`, `user_id`, `bank_account_id`, `bank_code`, `amount`, `currency`, `status`, `bank_status`, `failure_reason`, `created_at`, `updated_at`, `completed_at`) select `charge_id`, `user_id`, `bank_account_id`, `bank_code`, `amount`, `currency`, `status`, `bank_status`, `failure_reason`, `created_at`, `updated_at`, `completed_at` from `charges`");
    this.addSql("drop table `charges`");
    this.addSql("alter table `charges__temp_alter` rename to `charges`");
    this.addSql("create index `charges_user_id_index` on `charges` (`user_id`)");
  }
}
