import { Migration } from '@mikro-orm/migrations';

export class Migration20261125140000Compliance extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table `compliance_cases` (`case_id` text not null, `user_id` text not null, `kind` text check (`kind` in ('sanctions_hit', 'structuring', 'fan_out', 'new_recipient_large', 'new_device_large')) not null, `status` text check (`status` in ('open', 'approved', 'rejected', 'closed')) not null, `open_key` text null, `transfer_id` text null, `network_id` text null, `address` text null, `source` text not null, `programme` text null, `found_at` text not null, `opened_at` datetime not null, `decided_at` datetime null, `decided_by` text null, `reason` text null, primary key (`case_id`))");
    this.addSql("create index `compliance_cases_user_id_index` on `compliance_cases` (`user_id`)");
    this.addSql("create unique index `compliance_cases_open_key_unique` on `compliance_cases` (`open_key`)");
    this.addSql("create index `compliance_cases_transfer_id_index` on `compliance_cases` (`transfer_id`)");
    this.addSql("create table `sanctioned_addresses` (`source` text not null, `address_key` text not null, `assets` text not null, primary key (`source`, `address_key`))");
    this.addSql("create table `sanctions_lists` (`source` text not null, `list_date` text not null, `refreshed_at` datetime not null, `address_count` integer not null, `sha256` text not null, `source_url` text not null, primary key (`source`))");
  }
}
