// `auction-ops gen types typescript [--schema a,b] [--db-url URL]`: prints the `Database` type of the schemas for
// createClient<Database>() (the Supabase CLI's format), read from --db-url or this service's own database.
import postgres from 'postgres';
import { generateTypeScriptTypes } from '@auction-ops/rest-engine';
import { withDatabase } from '../database.js';
import { UsageError } from './super-admin.js';

const USAGE = 'usage: auction-ops gen types typescript [--schema a,b] [--db-url URL]';

function parseGenTypesArgs(args: readonly string[]): { schemas: string[]; dbUrl: string | null } {
  if (args[0] !== 'types' || args[1] !== 'typescript') throw new UsageError(USAGE);
  let schemas = ['public'];
  let dbUrl: string | null = null;
  for (let i = 2; i < args.length; i++) {
    const [flag, inline] = args[i].split(/=(.*)/s);
    const value = inline ?? args[++i];
    if (value === undefined || value === '') throw new UsageError(`${flag} needs a value\n${USAGE}`);
    if (flag === '--schema') schemas = value.split(',').map((s) => s.trim());
    else if (flag === '--db-url') dbUrl = value;
    else throw new UsageError(`unknown option ${flag}\n${USAGE}`);
  }
  return { schemas, dbUrl };
}

async function printTypes(url: string, schemas: string[]): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    process.stdout.write(await generateTypeScriptTypes(sql, { schemas }));
  } finally {
    await sql.end();
  }
}

export async function genCommand(args: string[]): Promise<void> {
  const { schemas, dbUrl } = parseGenTypesArgs(args);
  if (dbUrl) return printTypes(dbUrl, schemas);
  return withDatabase((db) => printTypes(db.ownerUrl, schemas));
}
