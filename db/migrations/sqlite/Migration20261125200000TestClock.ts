import { Migration } from '@mikro-orm/migrations';

export class Migration20261125200000TestClock extends Migration {
  override async up(): Promise<void> {
    this.addSql('create table `test_clock` (`id` text not null, `offset_ms` integer not null, `moved_at` datetime not null, `last_move_id` text null, primary key (`id`))');
  }
}
