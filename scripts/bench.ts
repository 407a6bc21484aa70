// `pnpm bench [rest|auth|storage|webhooks|notifications|functions|realtime|day ...]`: runs the named benchmarks (all
// when none is named). `day` takes options of its own (scripts/bench-day/main.ts).
// Each prints its figures as ratios against a baseline measured in the same run; nothing here asserts timings.
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
// Values of options (`--k 2`) are not names.
const names = process.argv
  .slice(2)
  .filter((a, i, args) => !a.startsWith('-') && !(args[i - 1]?.startsWith('--') && !['day'].includes(a)));
for (const name of names.length > 0 ? names : all) {
  if (![...all, ...onRequest].includes(name as never)) {
    console.error(`unknown benchmark "${name}"; choose from ${[...all, ...onRequest].join(', ')}`);
    process.exit(2);
  }
  console.log(`\n=== bench ${name} ===`);
  const mod = (await import(`./bench-${name}.ts`)) as { main: () => Promise<void> };
  await mod.main();
}
