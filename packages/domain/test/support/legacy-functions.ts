// A migration's functions as it first defined them, recreated in schema `legacy`: the reference that a later
// migration's faster redefinition must answer exactly like (the rollup tests compare both for every caller).
import { readFileSync } from 'node:fs';
import type postgres from 'postgres';

/** Recreates in `legacy` the functions of `migration` that stand between the texts `from` and `to`. */
export async function createLegacyFunctions(sql: postgres.Sql, migration: string, from: string, to: string) {
  const text = readFileSync(new URL(`../../migrations/${migration}`, import.meta.url), 'utf8');
  const body = text.slice(text.indexOf(from), text.indexOf(to));
  await sql`create schema legacy`;
  await sql.unsafe(body.replaceAll('create function public.', 'create function legacy.'));
  await sql`grant usage on schema legacy to authenticated, service_role`;
  await sql`grant execute on all functions in schema legacy to authenticated, service_role`;
}
