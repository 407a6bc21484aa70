// Reading Prometheus text in tests: the declared type of each metric, the sample lines of one metric, and the
// value of the sample with exactly the given labels.

/** `# TYPE name type` lines as a map. */
export function typesOf(text: string): Record<string, string> {
  return Object.fromEntries([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1], m[2]]));
}

/** The sample lines of `name` (with or without labels). */
export function seriesOf(text: string, name: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
}

function labelsOf(line: string): Record<string, string> {
  const inner = /^[^{\s]+\{(.*)\} /.exec(line)?.[1] ?? '';
  return Object.fromEntries([...inner.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
}

/** The value of `name` whose labels are exactly `labels`; undefined when there is no such sample. */
export function sampleOf(text: string, name: string, labels: Record<string, string>): number | undefined {
  const want = JSON.stringify(Object.entries(labels).sort());
  for (const line of seriesOf(text, name))
    if (JSON.stringify(Object.entries(labelsOf(line)).sort()) === want) return Number(line.split(' ').at(-1));
  return undefined;
}
