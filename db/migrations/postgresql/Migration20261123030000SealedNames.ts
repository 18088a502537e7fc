import { Migration } from '@mikro-orm/migrations';

/** English names are stored sealed (longer than the names); the worker seals the rows written before. */
export class Migration20261123030000SealedNames extends Migration {
  override async up(): Promise<void> {
    this.addSql("alter table \"kyc_basic_info\" alter column \"eng_surname\" type text using (\"eng_surname\"::text)");
    this.addSql("alter table \"kyc_basic_info\" alter column \"eng_name\" type text using (\"eng_name\"::text)");
  }
}
