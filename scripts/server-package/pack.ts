// `pnpm pack:server [--out DIR]`: writes auction-ops-<version>.tgz into DIR (default apps/server/dist).
import { join, resolve } from 'node:path';
import { packServer } from './build-package.js';
import { ROOT } from './bundle.js';

const at = process.argv.indexOf('--out');
const outDir = at > 0 && process.argv[at + 1] ? resolve(process.argv[at + 1]!) : join(ROOT, 'apps/server/dist');
const started = performance.now();
const packed = await packServer(outDir);
console.log(
  `${packed.tarball}\n  ${packed.files} files, ${Object.keys(packed.dependencies).length} dependencies, ` +
    `${Object.keys(packed.optionalDependencies).length} optional, in ${Math.round(performance.now() - started)} ms`,
);
