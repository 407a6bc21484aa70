// Which changes a group of subscribers needs checked, when the table names its tenant and the schema's owner the
// tenants an identity can see (realtime migration 0006): only the changes of its own tenants, and any whose tenant
// is unknown. Skipping a check can only hide a change, never show one: the policies decide every pair checked.

/**
 * The indexes of `changeTenants` to check for identities seeing `tenants`; undefined when every change is to be
 * checked (tenants not limited, or the table declares no tenant column).
 */
export function changesToCheck(
  tenants: ReadonlySet<string> | null,
  changeTenants: readonly (string | null)[] | undefined,
): number[] | undefined {
  if (tenants === null || changeTenants === undefined) return undefined;
  const indexes: number[] = [];
  changeTenants.forEach((tenant, i) => {
    if (tenant === null || tenants.has(tenant)) indexes.push(i);
  });
  return indexes;
}

/** The tenant of each change's row image, by the table's tenant column; null where the column is null or absent. */
export function tenantsOf(
  column: string | undefined,
  rows: readonly Readonly<Record<string, string | null | undefined>>[],
): (string | null)[] | undefined {
  if (column === undefined) return undefined;
  return rows.map((row) => row[column] ?? null);
}
