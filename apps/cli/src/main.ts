// The auction-ops command line. `start` and `--version` are answered before the other commands' modules load: a
// cluster's workers run this same command line, and each should hold the server alone.
const [name, ...args] = process.argv.slice(2);
if (name === 'start' && args.length === 0) {
  // In a checkout: apps/server/bin/start.mjs, the same build and process as `pnpm start` (signals reach the server
  // in this process). The npm package bundles the server's main in its place (scripts/server-package).
  await import('@auction-ops/server/start');
} else {
  // A reader that stops early (`auction-ops status | head -1`) is not an error of a command. (Not for `start`: the
  // server must stop in order, whatever becomes of its output. `start --help` and `start --bogus` come here.)
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  if (name === '--version' || name === '-v') console.log((await import('@auction-ops/server/version')).version);
  else await (await import('./run-command.js')).runCommand(name, args);
}
