// Checks a scrape against the Prometheus text format (0.0.4) and its naming rules, the way `promtool check metrics`
// does, without needing promtool: every line a HELP, a TYPE or a sample; each family typed once, before its
// samples, which stay together; valid names and escaped label values; no series twice; counters named `_total`
// and never negative; each histogram's buckets cumulative, ending at +Inf, equal to its _count, with a _sum.
// Returns the problems found, one message each (an empty list is a clean scrape).

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
// As Go's ParseFloat reads it (the format's rule): special values in any case. prom-client writes `Nan` for the
// event-loop lag of a process that has not been sampled yet.
const VALUE = /^(?:[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?inf(?:inity)?|nan)$/i;

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * `name{a="x",b="y"} value [timestamp]`, reading label values by the format's escapes (\\, \", \n only); a string
 * says what is wrong with the line. Also the day bench's reader of the server's clock (scripts/bench-day).
 */
export function parseSample(line: string): Sample | string {
  const name = /^[^\s{]+/.exec(line)?.[0] ?? '';
  if (!NAME.test(name)) return `invalid metric name "${name}"`;
  let i = name.length;
  const labels: Record<string, string> = {};
  if (line[i] === '{') {
    i++;
    while (line[i] !== '}') {
      const label = /^([^=\s]*)="/.exec(line.slice(i));
      if (!label) return 'malformed label set';
      const labelName = label[1] as string;
      if (!LABEL.test(labelName) || labelName.startsWith('__')) return `invalid label name "${labelName}"`;
      if (labelName in labels) return `label "${labelName}" given twice`;
      i += label[0].length;
      let value = '';
      for (; line[i] !== '"'; i++) {
        if (i >= line.length) return 'unterminated label value';
        if (line[i] !== '\\') value += line[i];
        else {
          const escaped = { '\\': '\\', '"': '"', n: '\n' }[line[++i] as string];
          if (escaped === undefined) return `invalid escape "\\${line[i]}" in a label value`;
          value += escaped;
        }
      }
      labels[labelName] = value;
      i++;
      if (line[i] === ',') i++;
      else if (line[i] !== '}') return 'malformed label set';
    }
    i++;
  }
  const rest = line.slice(i).split(' ');
  if (rest[0] !== '' || rest.length < 2 || rest.length > 3)
    return 'expected one space, a value and an optional timestamp';
  if (!VALUE.test(rest[1] as string)) return `invalid value "${rest[1]}"`;
  if (rest[2] !== undefined && !/^-?\d+$/.test(rest[2])) return `invalid timestamp "${rest[2]}"`;
  return { name, labels, value: Number((rest[1] as string).replace(/^([+-]?)inf(?:inity)?$/i, '$1Infinity')) };
}

/** The family a sample belongs to: its own name, or a histogram's or summary's name without the suffix. */
function familyOf(name: string, types: Map<string, string>): string | undefined {
  if (types.has(name)) return name;
  const base = /^(.*)_(bucket|sum|count)$/.exec(name);
  if (!base) return undefined;
  const type = types.get(base[1] as string);
  if (type === 'histogram' || (type === 'summary' && base[2] !== 'bucket')) return base[1];
  return undefined;
}

const seriesKey = (s: Sample, without?: string) =>
  `${s.name}{${Object.entries(s.labels)
    .filter(([k]) => k !== without)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(',')}}`;

export function lintExposition(text: string): string[] {
  const problems: string[] = [];
  const types = new Map<string, string>();
  const helps = new Set<string>();
  const seen = new Set<string>();
  const finished = new Set<string>();
  const byFamily = new Map<string, Sample[]>();
  let current: string | undefined;
  const enter = (family: string, at: string) => {
    if (family === current) return;
    if (current !== undefined) finished.add(current);
    if (finished.has(family)) problems.push(`${at}: family ${family} appears again after other families`);
    current = family;
  };
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  else problems.push('the text does not end with a newline');
  lines.forEach((line, n) => {
    const at = `line ${n + 1}`;
    const meta = /^# (HELP|TYPE) (\S+)(?: (.*))?$/.exec(line);
    if (meta) {
      const [, kind, name, rest = ''] = meta as unknown as [string, string, string, string?];
      if (!NAME.test(name)) problems.push(`${at}: invalid metric name "${name}"`);
      enter(name, at);
      if (kind === 'HELP') {
        if (helps.has(name)) problems.push(`${at}: second HELP for ${name}`);
        helps.add(name);
        return;
      }
      if (!TYPES.has(rest)) problems.push(`${at}: unknown type "${rest}" for ${name}`);
      if (types.has(name)) problems.push(`${at}: second TYPE for ${name}`);
      if (byFamily.has(name)) problems.push(`${at}: TYPE for ${name} after its samples`);
      types.set(name, rest);
      if (rest === 'counter' && !name.endsWith('_total')) problems.push(`${name}: a counter's name ends in _total`);
      if (rest !== 'counter' && name.endsWith('_total')) problems.push(`${name}: only counters end in _total`);
      return;
    }
    // Other comments and empty lines are allowed and ignored by the format.
    if (line.startsWith('#') || line === '') return;
    const sample = parseSample(line);
    if (typeof sample === 'string') {
      problems.push(`${at}: ${sample}: ${line}`);
      return;
    }
    const family = familyOf(sample.name, types);
    if (family === undefined) {
      problems.push(`${at}: ${sample.name} has no TYPE`);
      return;
    }
    enter(family, at);
    const key = seriesKey(sample);
    if (seen.has(key)) problems.push(`${at}: duplicate series ${key}`);
    seen.add(key);
    if (types.get(family) === 'counter' && !(sample.value >= 0)) problems.push(`${at}: negative counter ${key}`);
    byFamily.set(family, [...(byFamily.get(family) ?? []), sample]);
  });
  for (const [family, samples] of byFamily)
    if (types.get(family) === 'histogram') problems.push(...lintHistogram(family, samples));
  return problems;
}

/** Per series (labels without `le`): ascending bounds, non-decreasing counts, +Inf = _count, and a _sum. */
function lintHistogram(family: string, samples: Sample[]): string[] {
  const problems: string[] = [];
  const series = new Map<string, { buckets: Array<[number, number]>; count?: number; sum?: number }>();
  for (const s of samples) {
    const key = seriesKey({ ...s, name: family }, 'le');
    const entry = series.get(key) ?? { buckets: [] };
    series.set(key, entry);
    if (s.name === `${family}_bucket`) {
      const le = s.labels.le;
      if (le === undefined || !VALUE.test(le)) problems.push(`${key}: a bucket without a valid le`);
      else entry.buckets.push([Number(le.replace(/^\+?Inf$/, 'Infinity')), s.value]);
    } else if (s.name === `${family}_count`) entry.count = s.value;
    else if (s.name === `${family}_sum`) entry.sum = s.value;
    else problems.push(`${s.name}: a histogram sample is _bucket, _sum or _count`);
  }
  for (const [key, { buckets, count, sum }] of series) {
    for (let i = 1; i < buckets.length; i++) {
      const [le, n] = buckets[i] as [number, number];
      const [prevLe, prevN] = buckets[i - 1] as [number, number];
      if (le <= prevLe) problems.push(`${key}: bucket bounds not ascending`);
      if (n < prevN) problems.push(`${key}: bucket counts not cumulative`);
    }
    const last = buckets.at(-1);
    if (last?.[0] !== Number.POSITIVE_INFINITY) problems.push(`${key}: no le="+Inf" bucket`);
    else if (last[1] !== count) problems.push(`${key}: +Inf bucket ${last[1]} differs from _count ${count}`);
    if (sum === undefined) problems.push(`${key}: no _sum`);
  }
  return problems;
}
