// `pnpm pack:server`: the server and the CLI as the npm package `auction-ops` (bundle.ts, assets.ts, manifest.ts),
// staged in a fresh directory and packed with npm into `auction-ops-<version>.tgz`.
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyFilesBeside, listFiles, writeBuiltFiles } from './assets.js';
import { bundleCli, ROOT } from './bundle.js';
import { plainEnv } from './check-process.js';
import { packageManifest, releaseVersion } from './manifest.js';

export interface PackedServer {
  tarball: string;
  version: string;
  files: number;
  dependencies: Record<string, string>;
  optionalDependencies: Record<string, string>;
}

/** Packs into `outDir` (made if missing) and returns the tarball's path. */
export async function packServer(outDir: string): Promise<PackedServer> {
  const stage = mkdtempSync(join(tmpdir(), 'auction-ops-package-'));
  try {
    const version = releaseVersion();
    const bundled = await bundleCli(join(stage, 'dist'));
    copyFilesBeside(stage);
    await writeBuiltFiles(stage, version);
    cpSync(join(import.meta.dirname, 'files'), stage, { recursive: true });
    copyFileSync(join(ROOT, 'LICENSE'), join(stage, 'LICENSE'));
    const manifest = packageManifest(bundled);
    writeFileSync(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    mkdirSync(outDir, { recursive: true });
    // npm, as the registry would get it; the staged directory has no scripts for it to run.
    const [packed] = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--pack-destination', outDir], {
        cwd: stage,
        encoding: 'utf8',
        env: plainEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    return {
      tarball: join(outDir, packed.filename),
      version,
      files: listFiles(stage).length,
      dependencies: manifest.dependencies as Record<string, string>,
      optionalDependencies: manifest.optionalDependencies as Record<string, string>,
    };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}
