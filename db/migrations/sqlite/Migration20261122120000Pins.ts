import { Migration } from '@mikro-orm/migrations';

export class Migration20261122120000Pins extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table `user_pins` (`user_id` text not null, `pin_hash` text not null, `failed_attempts` integer not null default 0, `locked_until` datetime null, `updated_at` datetime not null, primary key (`user_id`))");
  }
}
