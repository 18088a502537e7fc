import { Migration } from '@mikro-orm/migrations';

export class Migration20261125150000TravelRule extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table `travel_rule_records` (`record_id` text not null, `direction` text check (`direction` in ('outbound', 'inbound')) not null, `user_id` text null, `transfer_id` text null, `counterpart_vasp_id` text not null, `counterpart_vasp_name` text not null, `network_id` text not null, `address` text not null, `status` text check (`status` in ('pending', 'approved', 'rejected', 'timed_out', 'failed', 'answered')) not null, `payload_sealed` text not null, `reason` text null, `request_identifier` text not null, `requested_at` datetime not null, `decided_at` datetime null, `retain_until` datetime not null, primary key (`record_id`))");
    this.addSql("create index `travel_rule_records_user_id_index` on `travel_rule_records` (`user_id`)");
    this.addSql("create unique index `travel_rule_records_transfer_id_unique` on `travel_rule_records` (`transfer_id`)");
    this.addSql("alter table `address_book` add column `ownership_challenge` text null");
    this.addSql("alter table `address_book` add column `ownership_challenge_expires_at` datetime null");
    this.addSql("alter table `address_book` add column `ownership_proved_at` datetime null");
    this.addSql("alter table `address_book` add column `ownership_proof` json null");
    this.addSql("alter table `transfers` add column `travel_rule` json null");
  }
}
