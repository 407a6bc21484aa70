// Numbers for people on the status page: bytes (1.2 GB), durations (3 min 20 s) and instants ("2 hours ago").

export { formatBytes } from '../format-bytes.js';

const STEPS: [number, string][] = [
  [86_400, 'd'],
  [3600, 'h'],
  [60, 'min'],
  [1, 's'],
];

/** The two largest units: "45 s", "3 min 20 s", "2 h 5 min", "3 d 4 h". */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '—';
  let rest = Math.max(0, Math.round(seconds));
  const parts: string[] = [];
  for (const [size, unit] of STEPS) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0 || (parts.length > 0 && parts.length < 2)) parts.push(`${count} ${unit}`);
    if (parts.length === 2) break;
  }
  if (parts.length === 0) return '0 s';
  return parts.filter((p, i) => i === 0 || !p.startsWith('0 ')).join(' ');
}

const RELATIVE: [number, Intl.RelativeTimeFormatUnit][] = [
  [86_400, 'day'],
  [3600, 'hour'],
  [60, 'minute'],
  [1, 'second'],
];

/** "2 hours ago", "in 5 minutes", "now". */
export function formatAgo(at: string | null | undefined, now = Date.now()): string {
  if (!at) return '—';
  const seconds = (new Date(at).getTime() - now) / 1000;
  if (!Number.isFinite(seconds)) return '—';
  const format = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  for (const [size, unit] of RELATIVE)
    if (Math.abs(seconds) >= size) return format.format(Math.trunc(seconds / size), unit);
  return format.format(0, 'second');
}
