// `pnpm bench [--smoke] [--except NAME] [rest|auth|storage|webhooks|notifications|functions|realtime|day ...]`: runs
// the named benchmarks (all when none is named, but those after --except: CI runs rest beside the others). `day` takes options of its own (scripts/bench-day/main.ts).
// Each prints its figures as ratios against a baseline measured in the same run; nothing here asserts timings.
// --smoke (`pnpm bench:smoke`, run by CI): each benchmark briefly, on small data (scripts/support/bench-smoke.ts), so
// that one that no longer runs fails; the exit status is not 0 when any benchmark failed, and the figures are not judged.
const all = [
  'rest',
  'auth',
  'storage',
  'webhooks',
  'notifications',
  'functions',
  'realtime',
  'backup',
  'data',
] as const;
// Run only when named: the day benchmark steps K through whole compressed hours (many minutes).
const onRequest = ['day'] as const;
// Flags that take no value; values of other options (`--k 2`) are not names.
const flags = ['--smoke'];
const smoke = process.argv.includes('--smoke');
// Read by the benchmarks' modules when they load, below.
if (smoke) process.env.BENCH_SMOKE = '1';
const names = process.argv
  .slice(2)
  .filter(
    (a, i, args) =>
      !a.startsWith('-') && !(args[i - 1]?.startsWith('--') && !flags.includes(args[i - 1]) && !['day'].includes(a)),
  );
const except = process.argv.flatMap((a, i, args) => (args[i - 1] === '--except' ? [a] : []));
// The smoke run covers the day benchmark too, at one tiny K.
const chosen = names.length > 0 ? names : smoke ? [...all, ...onRequest] : all;
for (const name of chosen.filter((n) => !except.includes(n))) {
  if (![...all, ...onRequest].includes(name as never)) {
    console.error(`unknown benchmark "${name}"; choose from ${[...all, ...onRequest].join(', ')}`);
    process.exit(2);
  }
  console.log(`\n=== bench ${name}${smoke ? ' (smoke: short, small data, figures not meaningful)' : ''} ===`);
  const started = performance.now();
  const mod = (await import(`./bench-${name}.ts`)) as { main: () => Promise<void> };
  await mod.main();
  if (smoke) console.log(`=== bench ${name}: ran in ${((performance.now() - started) / 1000).toFixed(1)} s ===`);
  // A benchmark that could not run sets the exit code (wrk missing, say); in the smoke run that is a failure.
  if (smoke && process.exitCode) {
    console.error(`bench ${name} failed (exit code ${process.exitCode})`);
    process.exit(Number(process.exitCode));
  }
}
// Nothing a benchmark left open (a timer, a socket) keeps the smoke run waiting once all have run.
if (smoke) process.exit(process.exitCode ?? 0);
