// Finds import circles: Tarjan's strongly connected components, then one chain of files per component to print.
import type { ImportGraph } from './import-graph.js';

/** A circle as a chain of files that starts and ends with the same file; `members` is every file in its tangle. */
export interface Circle {
  chain: string[];
  members: string[];
}

export function findCircles(graph: ImportGraph): Circle[] {
  return stronglyConnected(graph)
    .filter((c) => c.length > 1 || (graph.get(c[0]) ?? []).includes(c[0]))
    .map((members) => {
      const sorted = [...members].sort();
      return { chain: shortestCycle(graph, sorted[0], new Set(members)), members: sorted };
    })
    .sort((a, b) => a.chain[0].localeCompare(b.chain[0]));
}

// Iterative, so a long chain of imports cannot overflow the stack.
function stronglyConnected(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; edge: number }> = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const to = edges[frame.edge++];
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node) as number, index.get(to) as number));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node) as number, low.get(frame.node) as number));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop() as string;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        components.push(component);
      }
    }
  }
  return components;
}

/** Breadth-first from `start` back to itself inside its component: the shortest chain shows the circle plainly. */
function shortestCycle(graph: ImportGraph, start: string, within: Set<string>): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift() as string;
    for (const to of graph.get(node) ?? []) {
      if (!within.has(to)) continue;
      if (to === start) {
        const chain = [start];
        for (let at = node; at !== start; at = cameFrom.get(at) as string) chain.splice(1, 0, at);
        return [...chain, start];
      }
      if (!cameFrom.has(to)) {
        cameFrom.set(to, node);
        queue.push(to);
      }
    }
  }
  return [start, start];
}
