// `auction-ops seed`'s arguments, read before the command's module (and its database) is loaded.
import { defineCommand, noMorePositionals, wholeNumber } from '../command-spec.js';
import { UsageError } from '../usage-error.js';

export const seedUsage = defineCommand({
  usage: `usage: auction-ops seed --demo [--scale N] [--days D]
  N: whole number 1-1000, multiplies the data volume (100 is about 312,000 submissions over 60 days)
  D: whole number 1-3660, days of history (default 60)
  Applies pending migrations first, and makes the database when DATA_DIR holds none.`,
  options: { demo: { type: 'boolean', default: false }, scale: { type: 'string' }, days: { type: 'string' } },
  check({ values, positionals }) {
    noMorePositionals(positionals, 0);
    if (!values.demo) throw new UsageError('seed makes the demo auctions only: pass --demo');
    return {
      scale: wholeNumber('--scale', values.scale, 1, 1000) ?? 1,
      days: wholeNumber('--days', values.days, 1, 3660),
    };
  },
  run: async (args) => (await import('./seed.js')).runSeed(args),
});
