import { Migration } from '@mikro-orm/migrations';

export class Migration20261122120000Pins extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table \"user_pins\" (\"user_id\" varchar(64) not null, \"pin_hash\" varchar(255) not null, \"failed_attempts\" int not null default 0, \"locked_until\" timestamptz null, \"updated_at\" timestamptz not null, constraint \"user_pins_pkey\" primary key (\"user_id\"))");
  }
}
