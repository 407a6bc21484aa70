// `pnpm bench [rest|auth|storage|webhooks|notifications|functions|realtime ...]`: runs the named benchmarks (all
// when none is named).
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
const names = process.argv.slice(2).filter((a) => !a.startsWith('-'));
for (const name of names.length > 0 ? names : all) {
  if (!(all as readonly string[]).includes(name)) {
    console.error(`unknown benchmark "${name}"; choose from ${all.join(', ')}`);
    process.exit(2);
  }
  console.log(`\n=== bench ${name} ===`);
  const mod = (await import(`./bench-${name}.ts`)) as { main: () => Promise<void> };
  await mod.main();
}
