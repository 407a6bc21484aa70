// `pnpm bench data`: the data-at-scale benchmark, which lives with the domain (packages/domain/bench/data-bench.ts)
// because it needs the domain's seed and the database package.
export { main } from '../packages/domain/bench/data-bench.js';
