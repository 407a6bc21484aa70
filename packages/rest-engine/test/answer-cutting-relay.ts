// A TCP relay on loopback in front of PostgreSQL that loses a statement's answer on purpose: armed with a command
// tag, it forwards everything until the server's CommandComplete with that tag comes back, then closes both sides
// without passing on the chunk that carries it. Armed with 'COMMIT', the server has run the COMMIT and the client
// never learns it: the connection lost during COMMIT.
import { connect, createServer, type Socket } from 'node:net';

export interface AnswerCuttingRelay {
  /** `targetUrl` with the relay's host and port. */
  url: string;
  /** Cuts the connection that next carries a CommandComplete with `tag`; resolves when it has. */
  cutAt(tag: string): Promise<void>;
  close(): Promise<void>;
}

/** The CommandComplete message ('C', its length, the tag, a NUL) as it appears on the wire. */
function commandComplete(tag: string): Buffer {
  const text = Buffer.from(`${tag}\0`);
  const head = Buffer.alloc(5);
  head.write('C', 0);
  head.writeInt32BE(4 + text.length, 1);
  return Buffer.concat([head, text]);
}

export async function startAnswerCuttingRelay(targetUrl: string): Promise<AnswerCuttingRelay> {
  const target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  let armed: { marker: Buffer; done: () => void } | null = null;
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    const both = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', both);
    upstream.on('close', both);
    client.pipe(upstream);
    // A marker split across two chunks is not seen: the messages tests wait for are small and come whole on
    // loopback, and a missed cut fails the test's expectations rather than passing them.
    upstream.on('data', (chunk: Buffer) => {
      const cut = armed;
      if (cut && chunk.includes(cut.marker)) {
        armed = null;
        both();
        cut.done();
        return;
      }
      client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as { port: number }).port);
  return {
    url: url.toString(),
    cutAt: (tag) =>
      new Promise<void>((done) => {
        armed = { marker: commandComplete(tag), done };
      }),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
