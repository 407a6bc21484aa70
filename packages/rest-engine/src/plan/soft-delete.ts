// Soft deletes (option `softDeletes`): a DELETE on such a table calls a function for each row it selects instead of
// removing the rows. The function is found in the schema cache by its name and its shape: it takes the table's
// primary-key columns, in key order (further parameters need defaults), and returns the table's row type.
import { type DbFunction, type SchemaCache, tableKey } from '../schema-cache/types.js';

/** The soft-delete function `fnKey` ('schema.name') of the table `key` ('schema.name'), or why there is none. */
export function softDeleteFunction(cache: SchemaCache, key: string, fnKey: string): DbFunction | string {
  const table = cache.tables.get(key);
  if (!table) return `softDeletes: no table ${key} in the exposed schemas`;
  if (table.kind !== 'table') return `softDeletes: ${key} is not a table`;
  if (table.pk.length === 0) return `softDeletes: ${key} has no primary key`;
  const keyTypes = table.pk.map((c) => table.columns.get(c)!.typeOid);
  const fits = (cache.functions.get(fnKey) ?? []).filter(
    (f) =>
      !f.returnsSet &&
      f.returnTable !== null &&
      tableKey(f.returnTable.schema, f.returnTable.name) === key &&
      f.args.filter((a) => !a.hasDefault).length === keyTypes.length &&
      keyTypes.every((oid, i) => f.args[i]?.typeOid === oid),
  );
  if (fits.length === 1) return fits[0];
  const signature = `${fnKey}(${table.pk.map((c) => table.columns.get(c)!.type).join(', ')}) returns ${key}`;
  return fits.length === 0
    ? `softDeletes: no function ${signature} in the exposed schemas`
    : `softDeletes: more than one function ${signature}`;
}
