import { Migration } from '@mikro-orm/migrations';

export class Migration20261127040000PinLocks extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "user_pins" add column "locks" int not null default 0');
  }
}
