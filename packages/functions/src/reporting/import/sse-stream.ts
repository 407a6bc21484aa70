// A Server-Sent Events response fed by the import as it works: numbered events, a comment every 15 s so proxies
// keep the connection, and sends that become no-ops once the client has gone (the import itself goes on).
interface SseStream {
  response: Response;
  send(event: string, data: unknown): void;
  close(): void;
}

export function createSseStream(keepAliveMs = 15_000): SseStream {
  const encoder = new TextEncoder();
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  let open = true;
  let id = 0;
  const timer = setInterval(() => write(': keep-alive\n\n'), keepAliveMs);
  timer.unref();
  const write = (text: string) => {
    if (!open || !controller) return;
    try {
      controller.enqueue(encoder.encode(text));
    } catch {
      open = false;
    }
  };
  const close = () => {
    clearInterval(timer);
    if (!open) return;
    open = false;
    try {
      controller?.close();
    } catch {
      // already closed by the client
    }
  };
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    cancel() {
      open = false;
      clearInterval(timer);
    },
  });
  return {
    response: new Response(body, {
      status: 200,
      headers: {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        'x-accel-buffering': 'no',
      },
    }),
    send(event, data) {
      id++;
      write(`id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    close,
  };
}
