// postgres.js for the scripts' own connections, as the workspace packages resolve it (the root package does not
// depend on it): the one version the lockfile holds, with the project's patch (patches/postgres@3.4.9.patch).
// `Sql` is the caller's view of a connection (a package's type for it), since the root cannot name postgres.js's.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

export async function loadPostgres<Sql>(): Promise<(url: string, options?: object) => Sql> {
  const path = createRequire(new URL('../../packages/database/package.json', import.meta.url)).resolve('postgres');
  return ((await import(pathToFileURL(path).href)) as { default: (url: string, options?: object) => Sql }).default;
}
