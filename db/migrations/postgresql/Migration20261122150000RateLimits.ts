import { Migration } from '@mikro-orm/migrations';

/** Request counters shared by every API process (api/http/rate-limits.ts; rate-limiter-flexible's layout). */
export class Migration20261122150000RateLimits extends Migration {
  override async up(): Promise<void> {
    this.addSql('create table "rate_limits" ("key" varchar(255) primary key, "points" integer not null default 0, "expire" bigint)');
  }
}
