import { Migration } from '@mikro-orm/migrations';

export class Migration20261124115358CredentialStatus extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table `credential_status_lists` (`id` integer not null, `purpose` text not null, `length` integer not null, `allocated` integer not null default 0, `multiplier` integer not null, `offset` integer not null, `version` integer not null default 0, `document` text not null, `updated_at` datetime not null, primary key (`id`))");
    this.addSql("alter table `users` add column `closed_at` datetime null");
    this.addSql("alter table `verifiable_credentials` add column `holder` text null");
    this.addSql("alter table `verifiable_credentials` add column `status_list_id` integer null");
    this.addSql("alter table `verifiable_credentials` add column `status_list_index` integer null");
    this.addSql("alter table `verifiable_credentials` add column `revoked_at` datetime null");
    this.addSql("alter table `verifiable_credentials` add column `revocation_reason` text null");
    this.addSql("create unique index `verifiable_credentials_status_list_id_status_list_index_unique` on `verifiable_credentials` (`status_list_id`, `status_list_index`)");
  }
}
