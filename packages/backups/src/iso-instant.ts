// The one reading of a time argument (`backup restore --to-time`, `auction restore --to-time`): an ISO-8601 date and
// time with its offset, checked field by field. `new Date()` alone takes `yesterday` on some engines, rolls
// 2026-02-30 over into March, and reads a time without an offset in the local zone of whichever machine runs it.
// No imports: the command line checks its arguments with it before loading anything else.

/** What a time argument must look like, for messages. */
export const ISO_INSTANT_FORM = 'an ISO-8601 date and time with an offset or Z, such as 2026-12-06T09:30:00Z';

const SHAPE = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|z|[+-]\d{2}(?::?\d{2})?)$/;

/** The instant `text` names, or undefined when it is not a valid ISO-8601 date and time with an offset. */
export function parseIsoInstant(text: string): Date | undefined {
  const m = SHAPE.exec(text.trim());
  if (!m) return undefined;
  const [year, month, day, hour, minute, second = 0] = m.slice(1, 7).map((part) => Number(part ?? 0));
  if (month! < 1 || month! > 12 || hour! > 23 || minute! > 59 || second > 59) return undefined;
  // Date.UTC rolls a day past the month's end into the next month: the same day must come back.
  const fields = new Date(Date.UTC(year!, month! - 1, day!));
  if (day! < 1 || fields.getUTCDate() !== day) return undefined;
  const time = Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6] ?? '00'}${m[7] ?? ''}${offset(m[8]!)}`);
  return Number.isNaN(time) ? undefined : new Date(time);
}

/** `+0100`, `+01` and `z` in the one form Date.parse reads everywhere. */
function offset(text: string): string {
  if (text === 'Z' || text === 'z') return 'Z';
  const digits = text.slice(1).replace(':', '');
  const [hours, minutes = '00'] = [digits.slice(0, 2), digits.slice(2) || undefined];
  return Number(hours) > 23 || Number(minutes) > 59 ? 'invalid' : `${text[0]}${hours}:${minutes}`;
}
