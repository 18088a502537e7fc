import { Migration } from '@mikro-orm/migrations';

export class Migration20261125200000TestClock extends Migration {
  override async up(): Promise<void> {
    this.addSql('create table "test_clock" ("id" varchar(16) not null, "offset_ms" bigint not null, "moved_at" timestamptz not null, "last_move_id" varchar(128) null, primary key ("id"))');
  }
}
