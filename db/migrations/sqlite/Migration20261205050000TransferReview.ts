import { Migration } from '@mikro-orm/migrations';

/**
 * A transfer held for review keeps the case a monitoring rule opened for it (kind and detail): a retry of its execute
 * request after the workflow's start failed starts the workflow with the same review, not straight to signing.
 */
export class Migration20261205050000TransferReview extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table `transfers` add column `review` json null');
  }
}
