// `auction-ops gen types typescript [--schema a,b] [--db-url URL]`: prints the `Database` type of the schemas for
// createClient<Database>() (the Supabase CLI's format), read from --db-url or this service's own database.
import postgres from 'postgres';
import { generateTypeScriptTypes } from '@auction-ops/rest-engine';
import { withDatabase } from '../database.js';

async function printTypes(url: string, schemas: string[]): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    process.stdout.write(await generateTypeScriptTypes(sql, { schemas }));
  } finally {
    await sql.end();
  }
}

export async function genCommand({ schemas, dbUrl }: { schemas: string[]; dbUrl: string | null }): Promise<void> {
  if (dbUrl) return printTypes(dbUrl, schemas);
  return withDatabase((db) => printTypes(db.ownerUrl, schemas));
}
