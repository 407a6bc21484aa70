// /console/api/auctions/:auction/export: one auction's archive (docs/auction-data.md) as a download, for super
// admins only. Without the webhook signing secrets: those leave only through the CLI's --include-secrets, sealed
// with a passphrase the operator types. The server supplies the export (@auction-ops/auction-data).
import { Hono } from 'hono';
import { type ConsoleAccess, refusal } from './operator-guard.js';

export interface AuctionExports {
  /** The auction by slug or id, or undefined when there is none. */
  find(auction: string): Promise<{ id: string; slug: string } | undefined>;
  /** The archive's bytes as they are written (gzip); the stream errors if the export fails midway. */
  stream(auctionId: string): ReadableStream<Uint8Array>;
}

export interface AuctionExportRouteOptions {
  access: (token: string) => Promise<ConsoleAccess>;
  auctionExports?: AuctionExports;
}

export function auctionExportRoute(options: AuctionExportRouteOptions): Hono {
  const app = new Hono();
  app.get('/:auction/export', async (c) => {
    const refused = await refusal(c, options.access, 'export auctions');
    if (refused) return refused;
    const exports = options.auctionExports;
    if (!exports) return c.json({ message: 'auction export is not available on this server' }, 409);
    const auction = await exports.find(c.req.param('auction'));
    if (!auction) return c.json({ message: 'no such auction' }, 404);
    const day = new Date().toISOString().slice(0, 10);
    c.header('content-type', 'application/gzip');
    c.header('content-disposition', `attachment; filename="${auction.slug}-${day}.auction.gz"`);
    return c.body(exports.stream(auction.id));
  });
  return app;
}
