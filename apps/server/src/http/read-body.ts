// Buffered request bodies for the JSON families (auth, rest, storage's JSON routes): bounded by a byte limit,
// checked from Content-Length before reading and while reading, so an oversized body is never held whole.
// Each family renders the refusal (413) and a parse failure in its own error shape.

/** The body as UTF-8 text, or null once it is larger than `limit` bytes (declared or actually sent). */
export async function readBoundedText(req: Request, limit: number): Promise<string | null> {
  const declared = Number(req.headers.get('content-length') ?? Number.NaN);
  if (declared > limit) return null;
  if (req.body === null) return '';
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

/** The text as a JSON object, or undefined when it is not valid JSON or not an object. */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
