import { Migration } from '@mikro-orm/migrations';

/** The operators' compliance case list, paged newest first (by keyset): whole, by status, or by user. */
export class Migration20261127220000ComplianceCaseOrder extends Migration {
  override async up(): Promise<void> {
    this.addSql('create index "compliance_cases_opened_at_case_id_index" on "compliance_cases" ("opened_at", "case_id");');
    this.addSql(
      'create index "compliance_cases_status_opened_at_case_id_index" on "compliance_cases" ("status", "opened_at", "case_id");',
    );
    this.addSql(
      'create index "compliance_cases_user_id_opened_at_case_id_index" on "compliance_cases" ("user_id", "opened_at", "case_id");',
    );
  }
}
