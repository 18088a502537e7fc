import { Migration } from '@mikro-orm/migrations';

export class Migration20261124092537WebhookEndpoints extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table \"webhook_endpoints\" (\"endpoint_id\" varchar(64) not null, \"url\" varchar(2048) not null, \"description\" varchar(256) null, \"event_types\" jsonb not null, \"status\" text check (\"status\" in ('active', 'disabled')) not null, \"disabled_reason\" text null, \"secret_sealed\" text not null, \"previous_secret_sealed\" text null, \"previous_secret_until\" timestamptz null, \"cursor\" int not null, \"generation\" int not null default 0, \"delivered\" int not null default 0, \"failing_since\" timestamptz null, \"last_error\" text null, \"last_attempt_at\" timestamptz null, \"created_by\" varchar(64) not null, \"created_at\" timestamptz not null, \"updated_at\" timestamptz not null, constraint \"webhook_endpoints_pkey\" primary key (\"endpoint_id\"))");
  }
}
