import { Migration } from '@mikro-orm/migrations';

/** Transfer keys replaced by a rotation, and signed operations that change the transfer key's grant. */
export class Migration20261123070000TransferKeyRotation extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table \"retired_transfer_keys\" (\"address\" varchar(42) not null, \"user_id\" varchar(64) not null, \"key_sealed\" text not null, \"created_at\" timestamptz not null, \"retired_at\" timestamptz not null, constraint \"retired_transfer_keys_pkey\" primary key (\"address\"))");
    this.addSql("create index \"retired_transfer_keys_user_id_index\" on \"retired_transfer_keys\" (\"user_id\")");
    this.addSql("alter table \"signed_operations\" drop constraint if exists \"signed_operations_kind_check\"");
    this.addSql("alter table \"signed_operations\" add constraint \"signed_operations_kind_check\" check(\"kind\" in ('deploy', 'did_key', 'transfer_key'))");
  }
}
