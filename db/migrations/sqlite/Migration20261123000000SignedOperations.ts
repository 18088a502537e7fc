import { Migration } from '@mikro-orm/migrations';

/**
 * Deploy jobs and DID key operations become one table of signed operations. Every row moves with its id, status,
 * signed user operation and transaction hash, so a workflow in flight finds its operation under the same id. A DID
 * operation's account is the address in its did:ethr; its owner is the account's owner (execute signs as that owner).
 */
export class Migration20261123000000SignedOperations extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table `signed_operations` (`operation_id` text not null, `kind` text check (`kind` in ('deploy', 'did_key')) not null, `user_id` text not null, `network_id` text not null, `account_address` text not null, `owner_address` text not null, `details` json not null, `user_operation` json not null, `user_op_hash` text not null, `status` text check (`status` in ('prepared', 'submitted', 'completed', 'failed')) not null, `tx_hash` text null, `error` text null, `expires_at` datetime not null, `created_at` datetime not null, `updated_at` datetime not null, primary key (`operation_id`))");
    this.addSql("create index `signed_operations_user_id_index` on `signed_operations` (`user_id`)");
    this.addSql("insert into `signed_operations` (`operation_id`, `kind`, `user_id`, `network_id`, `account_address`, `owner_address`, `details`, `user_operation`, `user_op_hash`, `status`, `tx_hash`, `error`, `expires_at`, `created_at`, `updated_at`) select `job_id`, 'deploy', `user_id`, `network_id`, `account_address`, `owner_address`, '{}', `user_operation`, `user_op_hash`, `status`, `tx_hash`, `error`, `expires_at`, `created_at`, `updated_at` from `deploy_jobs`");
    this.addSql("insert into `signed_operations` (`operation_id`, `kind`, `user_id`, `network_id`, `account_address`, `owner_address`, `details`, `user_operation`, `user_op_hash`, `status`, `tx_hash`, `error`, `expires_at`, `created_at`, `updated_at`) select d.`op_id`, 'did_key', d.`user_id`, d.`network_id`, substr(d.`did`, -42), (select s.`owner_address` from `smart_accounts` s where s.`user_id` = d.`user_id` and s.`network_id` = d.`network_id`), json_object('did', d.`did`, 'keyType', d.`key_type`, 'publicKey', d.`public_key`), d.`user_operation`, d.`user_op_hash`, d.`status`, d.`tx_hash`, d.`error`, d.`expires_at`, d.`created_at`, d.`updated_at` from `did_key_operations` d");
    this.addSql("drop table `deploy_jobs`");
    this.addSql("drop table `did_key_operations`");
  }
}
