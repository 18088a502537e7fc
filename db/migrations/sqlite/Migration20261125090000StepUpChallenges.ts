import { Migration } from '@mikro-orm/migrations';

export class Migration20261125090000StepUpChallenges extends Migration {
  override async up(): Promise<void> {
    // A passkey approval challenge names the request it approves; registration challenges name none.
    this.addSql("alter table `webauthn_challenges` add column `purpose` text null");
  }
}
