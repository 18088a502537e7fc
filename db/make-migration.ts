/**
 * Writes the SQL that brings a database from the previous migration to the current entities, for both dialects.
 * Usage: DATABASE_URL=postgresql://... npx tsx db/make-migration.ts <Name>   (run once per dialect)
 * The generated class goes to db/migrations/<dialect>/ and must be added to db/migrations/<dialect>/index.ts. Review the
 * SQLite output: its introspection can propose rebuilding unchanged tables; keep only the statements you meant.
 */
import { writeFileSync } from 'node:fs';
import { MikroORM } from '@mikro-orm/core';
import { ormOptions, dialectOf } from './orm';

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL;
  const name = process.argv[2];
  if (!url || !name) throw new Error('usage: DATABASE_URL=... tsx db/make-migration.ts <Name>');
  const orm = await MikroORM.init(await ormOptions(url, { migrator: true }));
  await orm.getMigrator().up();
  const sql = await orm.schema.getUpdateSchemaSQL({ wrap: false });
  await orm.close();
  const statements = sql
    .split(';\n')
    .map((s) => s.trim())
    .filter(Boolean);
  const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
  const className = `Migration${stamp}${name}`;
  const body = statements.map((s) => `    this.addSql(${JSON.stringify(s)});`).join('\n');
  const file = `db/migrations/${dialectOf(url)}/${className}.ts`;
  writeFileSync(
    file,
    `import { Migration } from '@mikro-orm/migrations';\n\nexport class ${className} extends Migration {\n  override async up(): Promise<void> {\n${body}\n  }\n}\n`,
  );
  console.log(`wrote ${file}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
