// How this command line was installed, for the hints it prints: in a checkout the server starts with `pnpm start`;
// from the npm package (scripts/server-package), with `auction-ops start`. The package's bundle sees as
// `import.meta.url` this file's place in its mirrored tree, where no pnpm-workspace.yaml is.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

/** The command that starts the server where `root` (the checkout's root, or the package's tree) is installed. */
export function startCommand(root = ROOT): string {
  return existsSync(join(root, 'pnpm-workspace.yaml')) ? 'pnpm start' : 'auction-ops start';
}

/** `start it with DATA_DIR=… pnpm start`, or `auction-ops start`: the server on `dataDir`, as installed here. */
export function startHint(dataDir: string, root = ROOT): string {
  return `DATA_DIR=${dataDir} ${startCommand(root)}`;
}
