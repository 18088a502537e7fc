import { Migration } from '@mikro-orm/migrations';

export class Migration20261124091556Events extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table `events` (`position` integer not null primary key autoincrement, `event_id` text not null, `type` text not null, `resource_type` text not null, `resource_id` text not null, `sequence` integer not null, `user_id` text null, `data` json not null, `created_at` datetime not null)");
    this.addSql("create unique index `events_event_id_unique` on `events` (`event_id`)");
    this.addSql("create index `events_type_index` on `events` (`type`)");
    this.addSql("create index `events_resource_id_index` on `events` (`resource_id`)");
    this.addSql("create index `events_user_id_index` on `events` (`user_id`)");
    this.addSql("create unique index `events_resource_id_sequence_unique` on `events` (`resource_id`, `sequence`)");
    this.addSql("create table `event_streams` (`resource_id` text not null, `last_sequence` integer not null, primary key (`resource_id`))");
  }
}
