import { Migration } from '@mikro-orm/migrations';

/** Swaps are signed operations of their own kind (`swap`). */
export class Migration20261202060000Swaps extends Migration {
  override async up(): Promise<void> {
    this.addSql("alter table \"signed_operations\" drop constraint if exists \"signed_operations_kind_check\"");
    this.addSql("alter table \"signed_operations\" add constraint \"signed_operations_kind_check\" check(\"kind\" in ('deploy', 'did_key', 'transfer_key', 'account_upgrade', 'recovery_cancel', 'swap'))");
  }
}
