// /console: the page shell, the hashed client assets, and the status, backups and auction export endpoints. The bundle is built on the first
// request for the console, once per process (servers that nobody opens the console of never run esbuild).
import { Hono } from 'hono';
import { type BundleFile, clientBundle } from './client-bundle.js';
import { pageShell } from './page-shell.js';
import { type AuctionExportRouteOptions, auctionExportRoute } from './auction-export-route.js';
import { type BackupsRouteOptions, backupsRoute } from './backups-route.js';
import { type StatusRouteOptions, statusRoute } from './status-route.js';

export interface ConsoleOptions extends StatusRouteOptions, BackupsRouteOptions, AuctionExportRouteOptions {
  anonKey: string;
}

// Scripts, styles and API calls from this origin only: the console works offline and loads nothing from elsewhere.
const POLICY = "default-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'";

export function consoleRoutes(options: ConsoleOptions): Hono {
  const app = new Hono();
  app.route('/api/status', statusRoute(options));
  app.route('/api/backups', backupsRoute(options));
  app.route('/api/auctions', auctionExportRoute(options));
  app.get('/assets/:name', async (c) => {
    const { script, style } = await clientBundle();
    const file: BundleFile | undefined = [script, style].find((f) => f.name === c.req.param('name'));
    if (!file) return c.json({ message: 'no such console asset' }, 404);
    c.header('content-type', file.contentType);
    c.header('cache-control', 'public, max-age=31536000, immutable');
    return c.body(file.body as Uint8Array<ArrayBuffer>);
  });
  app.get('/', async (c) => {
    c.header('cache-control', 'no-cache');
    c.header('content-security-policy', POLICY);
    c.header('x-content-type-options', 'nosniff');
    return c.html(pageShell(await clientBundle(), options.anonKey));
  });
  return app;
}
