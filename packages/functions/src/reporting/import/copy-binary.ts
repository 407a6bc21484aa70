// COPY's binary format (https://www.postgresql.org/docs/current/sql-copy.html#id-1.9.3.55.9.4): each row is its
// field count and each field its length and value as Postgres sends it, so Postgres does not parse text. Measured
// on the benchmark's table, loading binary takes half the backend CPU of loading the same rows as CSV. The values
// come in the text forms the checks of this import accept (the byte path's and those of csv-types.ts), and are
// encoded here the way Postgres' own input functions would read them.
import type { ColumnType } from '../dataset-access.js';
import type { CopyBuffer } from './copy-buffer.js';

/** The signature, the flags and the header extension length that open the data. */
export const BINARY_HEADER = new Uint8Array([
  0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00, 0, 0, 0, 0, 0, 0, 0, 0,
]);
/** A field count of -1 ends the data. */
export const BINARY_TRAILER = new Uint8Array([0xff, 0xff]);

const PLUS = 0x2b;
const MINUS = 0x2d;
const DOT = 0x2e;
const COLON = 0x3a;
const encoder = new TextEncoder();

/** Writes a field's length and its value (null for an empty cell) from the exact conversion's text. */
export function writeField(type: ColumnType, value: string | null, out: CopyBuffer): void {
  out.reserve(4);
  if (value === null) {
    out.int32(-1);
    return;
  }
  const lengthAt = out.length;
  out.length += 4;
  if (type === 'text') out.text(value);
  else {
    const b = encoder.encode(value);
    out.reserve(b.length + 16);
    if (type === 'boolean') out.byte(value === 'true' ? 1 : 0);
    else if (type === 'integer') writeInt8(b, 0, b.length, out);
    else if (type === 'numeric') writeNumeric(b, 0, b.length, out);
    else if (type === 'date') out.int32(isoDays(b, 0));
    else if (!writeTimestamptz(b, 0, b.length, out)) throw new Error('has a time zone offset out of range');
  }
  out.int32At(lengthAt, out.length - lengthAt - 4);
}

/** `[+-]?\d{1,18}` as int8. */
export function writeInt8(b: Uint8Array, start: number, end: number, out: CopyBuffer): void {
  const negative = b[start] === MINUS;
  if (b[start] === PLUS || negative) start++;
  if (end - start <= 15) {
    let v = 0;
    for (let i = start; i < end; i++) v = v * 10 + b[i] - 0x30;
    out.int64(negative ? -v : v);
    return;
  }
  let v = 0n;
  for (let i = start; i < end; i++) v = v * 10n + BigInt(b[i] - 0x30);
  writeBigInt64(negative ? -v : v, out);
}

function writeBigInt64(v: bigint, out: CopyBuffer): void {
  const bits = BigInt.asUintN(64, v);
  out.int32(Number(bits >> 32n));
  out.int32(Number(bits & 0xffff_ffffn));
}

/**
 * `[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d{1,3})?` as numeric: base-10000 digits aligned on the decimal point, their
 * count, the weight of the first, the sign and the display scale numeric_in gives the text (the digits after the
 * point less the exponent). Leading and trailing zero digits are left for Postgres to strip, as it does.
 */
export function writeNumeric(b: Uint8Array, start: number, end: number, out: CopyBuffer): void {
  const negative = b[start] === MINUS;
  if (b[start] === PLUS || negative) start++;
  let mantissaEnd = start;
  while (mantissaEnd < end && (b[mantissaEnd] | 0x20) !== 0x65) mantissaEnd++;
  let exponent = 0;
  if (mantissaEnd < end) {
    let i = mantissaEnd + 1;
    const negativeExponent = b[i] === MINUS;
    if (b[i] === PLUS || negativeExponent) i++;
    for (; i < end; i++) exponent = exponent * 10 + b[i] - 0x30;
    if (negativeExponent) exponent = -exponent;
  }
  let point = mantissaEnd;
  for (let i = start; i < mantissaEnd; i++) if (b[i] === DOT) point = i;
  const integerDigits = point - start;
  const fractionDigits = point === mantissaEnd ? 0 : mantissaEnd - point - 1;
  // Digits before the point once the exponent has moved it; zeros in front align the point on a group boundary.
  const integerLength = integerDigits + exponent;
  const pad = (((4 - (integerLength % 4)) % 4) + 4) % 4;
  const count = Math.ceil((pad + integerDigits + fractionDigits) / 4);
  const weight = (pad + integerLength) / 4 - 1;
  const scale = Math.max(0, fractionDigits - exponent);
  // Postgres' own limits (131,072 digits before the point, 16,383 after), which its text input enforces too.
  if (weight > 0x7fff || weight < -0x8000 || count > 0x7fff || scale > 0x3fff)
    throw new Error('is out of the range of a number');
  out.reserve(8 + 2 * count);
  out.int16(count);
  out.int16(weight);
  out.int16(negative ? 0x4000 : 0);
  out.int16(scale);
  let group = 0;
  let inGroup = pad;
  for (let i = start; i < mantissaEnd; i++) {
    if (b[i] === DOT) continue;
    group = group * 10 + b[i] - 0x30;
    if (++inGroup === 4) {
      out.int16(group);
      group = 0;
      inGroup = 0;
    }
  }
  if (inGroup > 0) out.int16(group * 10 ** (4 - inGroup));
}

/** Days from 2000-01-01 (Postgres' epoch) to the calendar day `yyyy-mm-dd` at `at`. */
export function isoDays(b: Uint8Array, at: number): number {
  return daysFromEpoch(digits(b, at, 4), digits(b, at + 5, 2), digits(b, at + 8, 2));
}

/** Days from 2000-01-01 to a day of the proleptic Gregorian calendar (H. Hinnant's days_from_civil). */
function daysFromEpoch(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 730425;
}

const MAX_OFFSET_HOURS = 15;

/**
 * `yyyy-mm-dd[T ]hh:mm[:ss[.f{1,6}]][Z|±hh[[:]mm]]` (checked by the caller; T and Z in any case, no offset is UTC)
 * as timestamptz: microseconds from 2000-01-01 UTC. False, with nothing written, for an offset Postgres refuses
 * (beyond 15:59).
 */
export function writeTimestamptz(b: Uint8Array, start: number, end: number, out: CopyBuffer): boolean {
  let seconds = isoDays(b, start) * 86_400 + digits(b, start + 11, 2) * 3600 + digits(b, start + 14, 2) * 60;
  let micros = 0;
  let i = start + 16;
  if (i < end && b[i] === COLON) {
    seconds += digits(b, i + 1, 2);
    i += 3;
    if (i < end && b[i] === DOT) {
      let scale = 100_000;
      for (i++; i < end && b[i] >= 0x30 && b[i] <= 0x39; i++) {
        micros += (b[i] - 0x30) * scale;
        scale /= 10;
      }
    }
  }
  if (i < end && (b[i] === PLUS || b[i] === MINUS)) {
    const sign = b[i] === MINUS ? -1 : 1;
    const hours = digits(b, i + 1, 2);
    i += 3;
    if (i < end && b[i] === COLON) i++;
    const minutes = i < end ? digits(b, i, 2) : 0;
    if (hours > MAX_OFFSET_HOURS || minutes > 59) return false;
    seconds -= sign * (hours * 3600 + minutes * 60);
  }
  out.reserve(8);
  // Within about 285 years of 2000 the microseconds are exact as a double; further out they need a bigint.
  if (Math.abs(seconds) < 9_000_000_000) out.int64(seconds * 1_000_000 + micros);
  else writeBigInt64(BigInt(seconds) * 1_000_000n + BigInt(micros), out);
  return true;
}

/** The number written by `count` digits at `at` (checked by the caller). */
function digits(b: Uint8Array, at: number, count: number): number {
  let n = 0;
  for (let i = at; i < at + count; i++) n = n * 10 + b[i] - 0x30;
  return n;
}
