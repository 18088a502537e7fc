import { Migration } from '@mikro-orm/migrations';

/**
 * Every change of a user row, and every device or passkey row written, tells the api processes (LISTEN session_changed, see
 * api/common/session-cache.ts) that user's id, in the writing transaction, whichever process writes. SQLite has no
 * notifications; its api reads the session every time.
 */
export class Migration20261126070000SessionNotifications extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create or replace function notify_session_changed() returns trigger language plpgsql as $$
declare
  changed record;
begin
  if tg_op = 'DELETE' then changed := old; else changed := new; end if;
  if tg_table_name = 'users' then
    perform pg_notify('session_changed', changed.id);
  else
    perform pg_notify('session_changed', changed.user_id);
  end if;
  return null;
end $$`);
    this.addSql(
      'create trigger users_session_changed after update or delete on "users" for each row execute function notify_session_changed()',
    );
    this.addSql(
      'create trigger devices_session_changed after insert or update or delete on "devices" for each row execute function notify_session_changed()',
    );
    this.addSql(
      'create trigger passkeys_session_changed after insert or update or delete on "passkeys" for each row execute function notify_session_changed()',
    );
  }
}
