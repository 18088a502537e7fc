import { Migration } from '@mikro-orm/migrations';

export class Migration20261127120000TrpV3 extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "travel_rule_records" add column "asset" varchar(64) null');
    this.addSql('alter table "travel_rule_records" add column "amount" varchar(80) null');
    this.addSql('alter table "travel_rule_records" add column "txid" varchar(128) null');
    this.addSql('alter table "travel_rule_records" add column "canceled" text null');
    this.addSql('alter table "travel_rule_records" add column "confirmed_at" timestamptz null');
    this.addSql('create unique index "travel_rule_records_request_unique" on "travel_rule_records" ("direction", "counterpart_vasp_id", "request_identifier")');
  }
}
