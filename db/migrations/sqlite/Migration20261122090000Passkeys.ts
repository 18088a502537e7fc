import { Migration } from '@mikro-orm/migrations';

export class Migration20261122090000Passkeys extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table `passkeys` (`passkey_id` text not null, `user_id` text not null, `credential_id` text not null, `public_key` text not null, `sign_count` bigint not null, `transports` json not null, `device_type` text not null, `backed_up` integer not null, `name` text not null, `created_at` datetime not null, `last_used_at` datetime null, primary key (`passkey_id`))");
    this.addSql("create index `passkeys_user_id_index` on `passkeys` (`user_id`)");
    this.addSql("create unique index `passkeys_credential_id_unique` on `passkeys` (`credential_id`)");
    this.addSql("create table `verifiable_credentials` (`vc_id` text not null, `user_id` text not null, `type` text not null, `source_key` text not null, `document_sealed` text not null, `valid_from` datetime not null, `valid_until` datetime not null, `issued_at` datetime not null, primary key (`vc_id`))");
    this.addSql("create index `verifiable_credentials_user_id_index` on `verifiable_credentials` (`user_id`)");
    this.addSql("create unique index `verifiable_credentials_source_key_unique` on `verifiable_credentials` (`source_key`)");
    this.addSql("create table `webauthn_challenges` (`challenge_id` text not null, `user_id` text not null, `challenge` text not null, `expires_at` datetime not null, `used_at` datetime null, primary key (`challenge_id`))");
    this.addSql("create index `webauthn_challenges_user_id_index` on `webauthn_challenges` (`user_id`)");
  }
}
