// `pnpm bench day`: the day benchmark, in scripts/bench-day/ (main.ts says what it does).
export { main } from './bench-day/main.js';
