// `pnpm check:server-package` (CI): the `auction-ops` npm package as an operator gets it. Packs it (pack:server),
// installs the tarball with plain npm into an empty project, and runs there `auction-ops --version` and
// `auction-ops start` (two cluster workers, PORT=0, a temporary DATA_DIR): /health, supabase-js sign-up and reads
// under row-level security, the console's prebuilt client, then SIGTERM to npx: port closed, PostgreSQL stopped.
// Then the same from a global install (`npm install -g --ignore-scripts --prefix`): `seed --demo`, then start in a
// working directory with the default ./.data, stopped by SIGTERM, started again and stopped by SIGINT, and started
// again and killed with SIGKILL (its PostgreSQL's watchdog stops the cluster). Neither install may print an npm
// warning but those install-warnings.ts allows, each with its reason (issue 56).
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listFiles } from './assets.js';
import { packServer } from './build-package.js';
import {
  plainEnv,
  portOpen,
  postmasterAlive,
  run,
  runAll,
  type StartedServer,
  startServer,
  stopServer,
  waitFor,
} from './check-process.js';
import { supabaseCalls } from './check-supabase.js';
import { unexpectedWarnings } from './install-warnings.js';

let passed = 0;
let failed = 0;
function check(name: string, ok: boolean, detail = ''): void {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'ok' : 'FAIL'} ${name}${ok ? '' : `\n${detail}`}`);
}
const timings: string[] = [];
async function timed<T>(what: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await work();
  timings.push(`${what} ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return result;
}

/** On a supported Node the install prints no warnings (issue 56): no EBADENGINE, no skipped install scripts. */
function checkInstallOutput(label: string, output: string): void {
  const warnings = unexpectedWarnings(output);
  check(`${label} prints no npm warnings`, warnings.length === 0, warnings.join('\n'));
}

const serverEnv = (extra: Record<string, string>) =>
  plainEnv({ PORT: '0', LOG_LEVEL: 'warn', AUTH_AUTOCONFIRM: 'true', RATE_LIMITS_ENABLED: 'false', ...extra });

/**
 * /health, then `signal` to the started process alone (as a supervisor sends it) and checks that the port and the
 * embedded PostgreSQL are gone.
 */
async function probeAndStop(
  label: string,
  server: StartedServer,
  dataDir: string,
  version: string,
  signal: NodeJS.Signals,
) {
  const health = await fetch(`${server.url}/health`);
  const body = (await health.json()) as { version?: string };
  check(`${label}: GET /health answers 200 with ${version}`, health.status === 200 && body.version === version);
  check(`${label}: the embedded PostgreSQL runs in its DATA_DIR`, postmasterAlive(dataDir), dataDir);
  const code = await stopServer(server, signal);
  // Under npx the started process is npx, which SIGTERM ends: its shell child dies with it and the server, started
  // by a package manager, stops once orphaned. The server's own status shows with the global command.
  const npx = label.startsWith('npx');
  if (!npx) check(`${label}: ${signal} stops it with status 0`, code === 0, `status ${code}\n${server.output()}`);
  await waitFor(`${label}: the port to close`, async () => !(await portOpen(server.url)), 30_000);
  check(`${label}: the port is closed`, true);
  // PostgreSQL runs in a process group of its own: the signal did not reach it, the server stopped it.
  await waitFor(`${label}: the postmaster of ${dataDir} to stop`, () => !postmasterAlive(dataDir), 30_000);
  check(`${label}: no postmaster of its DATA_DIR is left`, true);
}

async function localInstall(work: string, tarball: string, version: string): Promise<void> {
  const app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'operator', private: true }));
  const installed = await timed('npm install', () =>
    runAll('npm', ['install', '--no-audit', '--no-fund', tarball], app),
  );
  checkInstallOutput(`npm install on Node ${process.versions.node}`, installed);
  const packageDir = join(app, 'node_modules/auction-ops');
  const shipped = listFiles(packageDir).length;
  // The console's client and the parse worker ship built: nothing may fall back to building them here.
  check('esbuild is not installed with the package', !existsSync(join(app, 'node_modules/esbuild')));
  const npx = await run('npx', ['--no-install', 'auction-ops', '--version'], app);
  check(`npx auction-ops --version prints ${version}`, npx.trim() === version, npx);

  const dataDir = join(work, 'data');
  const server = await timed('start (2 workers, first start: initdb and migrations)', () =>
    startServer(
      'npx',
      ['--no-install', 'auction-ops', 'start'],
      app,
      serverEnv({ DATA_DIR: dataDir, WEB_CONCURRENCY: '2' }),
    ),
  );
  try {
    for (const [name, ok, detail] of await supabaseCalls(server.url, server.anonKey, server.serviceRoleKey))
      check(`supabase-js: ${name}`, ok, detail);
    const page = await fetch(`${server.url}/console`);
    const html = await page.text();
    const script = /src="(\/console\/assets\/console-[0-9a-f]+\.js)"/.exec(html)?.[1];
    const asset = script ? await fetch(`${server.url}${script}`) : undefined;
    check('the console serves its prebuilt client', page.status === 200 && asset?.status === 200, html.slice(0, 500));
  } finally {
    await probeAndStop('npx auction-ops start', server, dataDir, version, 'SIGTERM');
  }
  check('nothing was written into node_modules/auction-ops', listFiles(packageDir).length === shipped);
}

async function globalInstall(work: string, tarball: string, version: string): Promise<void> {
  const prefix = join(work, 'global');
  const installed = await timed('npm install -g', () =>
    // No install scripts, as npm 12 runs none unapproved: the embedded PostgreSQL's library links are the server's.
    runAll('npm', ['install', '-g', '--ignore-scripts', '--no-audit', '--no-fund', '--prefix', prefix, tarball], work),
  );
  checkInstallOutput(`npm install -g on Node ${process.versions.node}`, installed);
  const bin = join(prefix, 'bin/auction-ops');
  const printed = await run(bin, ['--version'], work);
  check(`${bin} --version prints ${version}`, printed.trim() === version, printed);
  // No DATA_DIR: the default is ./.data of the working directory.
  const cwd = join(work, 'service');
  mkdirSync(cwd);
  const env = serverEnv({});
  delete env.DATA_DIR;
  // A command besides start: the demo data reads its reports from the mirrored tree, and migrates first.
  const seeded = await run(bin, ['seed', '--demo'], cwd, env);
  check('auction-ops seed --demo prints the demo users', /@riverside\.example\.com/.test(seeded), seeded);
  // Hints fit the installation (issue 56): `auction-ops start`, never the checkout's `pnpm start`.
  const cert = await run(bin, ['cert', '--dir', join(work, 'tls')], cwd, env);
  check('auction-ops cert names auction-ops start', /\bauction-ops start\b/.test(cert) && !/pnpm/.test(cert), cert);
  // A usage error makes nothing: no ./.data for `seed --help` (issue 56).
  const help = await run(bin, ['seed', '--help'], join(work, 'tls'), env);
  check('auction-ops seed --help prints its usage', help.includes('usage: auction-ops seed'), help);
  check('auction-ops seed --help makes no ./.data', !existsSync(join(work, 'tls', '.data')));
  const server = await timed('start (global install, 1 process)', () => startServer(bin, ['start'], cwd, env));
  check('the default DATA_DIR is ./.data of the working directory', existsSync(join(cwd, '.data/postgres')));
  await probeAndStop('auction-ops start (global)', server, join(cwd, '.data'), version, 'SIGTERM');
  const again = await startServer(bin, ['start'], cwd, env);
  await probeAndStop('auction-ops start (global), again', again, join(cwd, '.data'), version, 'SIGINT');
  // kill -9 (issue 56): the watchdog started with the embedded PostgreSQL, from the bundle, stops the cluster.
  const killed = await startServer(bin, ['start'], cwd, env);
  await stopServer(killed, 'SIGKILL');
  const stopped = await waitFor(
    'the watchdog to stop the PostgreSQL of a killed server',
    () => !postmasterAlive(join(cwd, '.data')),
    30_000,
  ).then(
    () => '',
    (error: Error) => error.message,
  );
  check('auction-ops start (global), killed with SIGKILL: its PostgreSQL stopped', stopped === '', stopped);
}

async function main(): Promise<number> {
  const work = mkdtempSync(join(tmpdir(), 'auction-ops-package-check-'));
  // Run as root, the server runs PostgreSQL as the `postgres` user, which must reach the binaries installed here.
  chmodSync(work, 0o755);
  try {
    const packed = await timed('pack', () => packServer(work));
    console.log(`${packed.tarball}: ${packed.files} files`);
    await localInstall(work, packed.tarball, packed.version);
    await globalInstall(work, packed.tarball, packed.version);
  } catch (error) {
    check('the package check ran to its end', false, (error as Error).stack ?? String(error));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  console.log(`timings: ${timings.join(', ')}`);
  console.log(`${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

process.exitCode = await main();
