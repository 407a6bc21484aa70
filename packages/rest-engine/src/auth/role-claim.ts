// PostgREST's jwt-role-claim-key: a JSON path into the claims such as `.role`, `."https://example.com/claims".role`
// or `.realm_access.roles[0]`.

type PathStep = string | number;

export function parseRoleClaimKey(key: string): PathStep[] {
  const steps: PathStep[] = [];
  const re = /\.(?:"((?:[^"\\]|\\.)*)"|([A-Za-z0-9_$@:-]+))|\[(\d+)\]/y;
  let i = 0;
  while (i < key.length) {
    re.lastIndex = i;
    const m = re.exec(key);
    if (!m) throw new TypeError(`jwt role claim key ${JSON.stringify(key)}: cannot read a path step at ${i}`);
    steps.push(m[3] !== undefined ? Number(m[3]) : (m[1]?.replace(/\\(.)/g, '$1') ?? m[2]!));
    i = re.lastIndex;
  }
  if (steps.length === 0) throw new TypeError('jwt role claim key is empty');
  return steps;
}

export function readPath(value: unknown, steps: readonly PathStep[]): unknown {
  let v = value;
  for (const step of steps) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[step];
  }
  return v;
}
