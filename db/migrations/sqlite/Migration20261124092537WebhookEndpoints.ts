import { Migration } from '@mikro-orm/migrations';

export class Migration20261124092537WebhookEndpoints extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table `webhook_endpoints` (`endpoint_id` text not null, `url` text not null, `description` text null, `event_types` json not null, `status` text check (`status` in ('active', 'disabled')) not null, `disabled_reason` text null, `secret_sealed` text not null, `previous_secret_sealed` text null, `previous_secret_until` datetime null, `cursor` integer not null, `generation` integer not null default 0, `delivered` integer not null default 0, `failing_since` datetime null, `last_error` text null, `last_attempt_at` datetime null, `created_by` text not null, `created_at` datetime not null, `updated_at` datetime not null, primary key (`endpoint_id`))");
  }
}
