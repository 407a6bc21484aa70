// What the benchmarks share: the real server, from the production build `pnpm start` runs, on a fresh embedded
// cluster in a temporary data directory (quiet logs, a fixed JWT secret), removed again by stop(), and the
// percentile of a sorted sample.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RunningServer } from '../../apps/server/src/index.js';
import { buildServer } from '../../apps/server/build/server-build.mjs';

type ServerModule = typeof import('../../apps/server/src/index.js');
let built: Promise<ServerModule> | undefined;

/**
 * The server's module from its production build (built on first use): the benchmarks measure the JavaScript
 * production runs, not the sources under tsx (whose `__name` wrapper on every closure production does not pay).
 */
export function builtServer(): Promise<ServerModule> {
  built ??= buildServer().then((dir) => import(pathToFileURL(join(dir, 'index.mjs')).href) as Promise<ServerModule>);
  return built;
}

export const BENCH_JWT_SECRET = 'bench-secret-'.padEnd(40, 'x');

export interface BenchServer {
  server: RunningServer;
  /** The temporary directory; the server's DATA_DIR is `dataDir` itself unless the caller chose another. */
  dir: string;
  /** Stops the server and removes the directory. */
  stop(): Promise<void>;
}

/**
 * Starts the server for the benchmark `name` (the directory is `auction-ops-bench-<name>-*` in the temp dir).
 * `env` overrides the defaults; `dataDir` picks the server's data directory inside the temporary one.
 */
export async function startBenchServer(
  name: string,
  env: Record<string, string> = {},
  options: { dataDir?: (dir: string) => string; beforeStart?: (dir: string) => void | Promise<void> } = {},
): Promise<BenchServer> {
  const dir = mkdtempSync(join(tmpdir(), `auction-ops-bench-${name}-`));
  try {
    await options.beforeStart?.(dir);
    const { startServer, loadConfig } = await builtServer();
    const server = await startServer(
      loadConfig({
        PORT: '0',
        DATA_DIR: options.dataDir?.(dir) ?? dir,
        LOG_LEVEL: 'warn',
        JWT_SECRET: BENCH_JWT_SECRET,
        ...env,
      }),
    );
    return {
      server,
      dir,
      async stop() {
        await server.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** The p-th percentile (0-100) of an ascending sample. */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
