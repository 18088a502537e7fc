import { Migration } from '@mikro-orm/migrations';

export class Migration20261127120000TrpV3 extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table `travel_rule_records` add column `asset` text null');
    this.addSql('alter table `travel_rule_records` add column `amount` text null');
    this.addSql('alter table `travel_rule_records` add column `txid` text null');
    this.addSql('alter table `travel_rule_records` add column `canceled` text null');
    this.addSql('alter table `travel_rule_records` add column `confirmed_at` datetime null');
    this.addSql('create unique index `travel_rule_records_request_unique` on `travel_rule_records` (`direction`, `counterpart_vasp_id`, `request_identifier`)');
  }
}
