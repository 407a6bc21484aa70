// `pnpm lint` runs this: fails when any source files import each other in a circle (STYLE.md 12), type-only too.
// Usage: node --import tsx scripts/import-circles/check.ts [root]
import { fileURLToPath } from 'node:url';
import { findCircles } from './find-circles.js';
import { buildImportGraph } from './import-graph.js';

const root = process.argv[2] ?? fileURLToPath(new URL('../..', import.meta.url));
const graph = buildImportGraph(root);
const circles = findCircles(graph);

for (const circle of circles) {
  console.error(`import circle: ${circle.chain.join(' -> ')}`);
  const others = circle.members.filter((m) => !circle.chain.includes(m));
  if (others.length > 0) console.error(`  also tangled in it: ${others.join(', ')}`);
}
if (circles.length > 0) {
  console.error(`${circles.length} import circle(s) among ${graph.size} files`);
  process.exit(1);
}
console.log(`no import circles among ${graph.size} files`);
