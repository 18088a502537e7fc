import { Migration } from '@mikro-orm/migrations';

/**
 * A user row's update tells the api processes only when it changes something. The worker's fence before it signs a
 * transfer (`update users set status = … where id = … and status = …`, activities/account.ts) writes the row as it
 * was, to wait for a closure that holds it; each such write told every api process to drop the user's session and
 * accounts, so the next request of that user read them again (issue 52: two statements per transfer, and a
 * notification). Deleting a row tells as before.
 */
export class Migration20261204230000SessionNotificationsOnChange extends Migration {
  override async up(): Promise<void> {
    this.addSql('drop trigger users_session_changed on "users"');
    this.addSql(
      'create trigger users_session_changed after update on "users" for each row when (old.* is distinct from new.*) execute function notify_session_changed()',
    );
    this.addSql(
      'create trigger users_session_deleted after delete on "users" for each row execute function notify_session_changed()',
    );
  }
}
