// Which type an upload is stored under, per the bucket's `content_check`: 'strict' (the bytes decide; our
// original rule, kept for buckets made by SQL such as the domain's lot-images) or 'declared' (Supabase's rule:
// the declared type decides, for buckets made through the API) with the checks that protect readers kept:
// markup or programs are never stored under an image type, so a public image URL cannot serve a page or a binary.
import { normaliseMimeType, sameImageFamily, sniffImageType, typeAllowed } from './content-sniffer.js';
import { errors } from './storage-errors.js';

export type ContentCheck = 'strict' | 'declared';
export const CONTENT_CHECKS: readonly ContentCheck[] = ['strict', 'declared'];

const SNIFFABLE = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/heic', 'image/heif']);
// A declared type is kept as sent (with its parameters, e.g. `text/plain;charset=UTF-8`) when it is plain text.
const HEADER_SAFE = /^[\x20-\x7e]{1,255}$/;
// HTML, SVG/XML and scripts by their opening text; PE, ELF and Mach-O executables by their magic numbers.
const MARKUP = /^\s*(<!doctype|<html|<head|<body|<script|<svg|<\?xml|<iframe|<object)/i;
const EXECUTABLE = [
  [0x4d, 0x5a],
  [0x7f, 0x45, 0x4c, 0x46],
  [0xcf, 0xfa, 0xed, 0xfe],
  [0xca, 0xfe, 0xba, 0xbe],
  [0x23, 0x21],
];

/** Whether these leading bytes are markup or a program (never acceptable under an image type). */
export function isActiveContent(head: Uint8Array): boolean {
  if (EXECUTABLE.some((magic) => magic.every((byte, i) => head[i] === byte))) return true;
  return MARKUP.test(Buffer.from(head).toString('latin1'));
}

/** The type to store: the declaration as sent when it names the same type we checked, else the checked one. */
function storedType(raw: string | undefined, checked: string): string {
  const sent = raw?.trim();
  if (sent && HEADER_SAFE.test(sent) && sent.split(';')[0]!.trim().toLowerCase() === checked) return sent;
  return checked;
}

/** Refuses a declared type the bucket does not allow before any byte is read. */
export function precheckDeclaredType(declared: string | undefined, allowed: readonly string[] | null): void {
  const type = normaliseMimeType(declared);
  if (allowed && type && !typeAllowed(type, allowed))
    throw errors.invalidMimeType(`mime type ${type} is not supported`);
}

/** The stored type for these leading bytes, or a 415. */
export function decideType(
  head: Uint8Array,
  declaredType: string | undefined,
  allowed: readonly string[] | null,
  check: ContentCheck = 'strict',
): string {
  return check === 'declared' ? declaredRule(head, declaredType, allowed) : strictRule(head, declaredType, allowed);
}

function declaredRule(head: Uint8Array, declaredType: string | undefined, allowed: readonly string[] | null): string {
  const declared = normaliseMimeType(declaredType);
  const type = declared ?? sniffImageType(head) ?? 'application/octet-stream';
  if (allowed && !typeAllowed(type, allowed)) throw errors.invalidMimeType(`mime type ${type} is not supported`);
  if (type.startsWith('image/') && type !== 'image/svg+xml' && isActiveContent(head)) {
    throw errors.invalidMimeType(`The declared type ${type} does not match the file content`);
  }
  return storedType(declaredType, type);
}

function strictRule(head: Uint8Array, declaredType: string | undefined, allowed: readonly string[] | null): string {
  const declared = normaliseMimeType(declaredType);
  const sniffed = sniffImageType(head);
  // Recognised bytes must be an allowed type. Bytes we cannot recognise pass only on a declared type the
  // list names and we cannot check (e.g. text/csv); an image-only list therefore needs real image bytes.
  if (allowed) {
    const acceptable = sniffed
      ? typeAllowed(sniffed, allowed)
      : declared !== undefined && !SNIFFABLE.has(declared) && typeAllowed(declared, allowed);
    if (!acceptable) throw errors.invalidMimeType('The file content is not an allowed type');
  }
  // A type we can recognise must be what the bytes are; other declared types are taken as given (only in
  // buckets without a type list, e.g. image/svg+xml or text/csv).
  if (declared && SNIFFABLE.has(declared) && (!sniffed || !sameImageFamily(declared, sniffed))) {
    throw errors.invalidMimeType(
      `The declared type ${declared} does not match the file content${sniffed ? ` (${sniffed})` : ''}`,
    );
  }
  return declared ? storedType(declaredType, declared) : (sniffed ?? 'application/octet-stream');
}
