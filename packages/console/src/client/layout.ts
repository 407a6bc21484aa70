// The signed-in frame: a header with the operator's e-mail and Sign out, the page navigation, and the page.
import { h, notice } from './dom.js';
import { renderAuctions } from './pages/auctions.js';
import { renderDeletedAuctions } from './pages/deleted-auctions.js';
import { renderImports } from './pages/imports.js';
import { renderOutboxes } from './pages/outboxes.js';
import { renderRealtime } from './pages/realtime.js';
import { renderBackups } from './pages/backups.js';
import { renderStatus } from './pages/status.js';
import { renderUsers } from './pages/users.js';
import { renderWebhooks } from './pages/webhooks.js';

type PageRenderer = (main: HTMLElement, params: URLSearchParams) => Promise<void>;

export const PAGES: { id: string; title: string; render: PageRenderer }[] = [
  { id: 'status', title: 'Server status', render: renderStatus },
  { id: 'users', title: 'Users', render: renderUsers },
  { id: 'auctions', title: 'Auctions', render: renderAuctions },
  { id: 'deleted-auctions', title: 'Pending deletion', render: renderDeletedAuctions },
  { id: 'webhooks', title: 'Webhooks', render: renderWebhooks },
  { id: 'imports', title: 'CSV imports', render: renderImports },
  { id: 'outboxes', title: 'Outboxes', render: renderOutboxes },
  { id: 'realtime', title: 'Realtime', render: renderRealtime },
  { id: 'backups', title: 'Backups', render: renderBackups },
];

export async function renderLayout(
  root: HTMLElement,
  pageId: string,
  params: URLSearchParams,
  email: string,
  signOut: () => Promise<void>,
): Promise<void> {
  const page = PAGES.find((p) => p.id === pageId) ?? PAGES[0];
  delete document.body.dataset.ready;
  const nav = h(
    'nav',
    { 'aria-label': 'Console pages' },
    h(
      'ul',
      {},
      ...PAGES.map((p) =>
        h('li', {}, h('a', { href: `#/${p.id}`, 'aria-current': p.id === page.id ? 'page' : undefined }, p.title)),
      ),
    ),
  );
  const main = h('main', { id: 'main' }, h('h1', {}, page.title), notice('Loading…'));
  const header = h(
    'header',
    {},
    h('p', { class: 'brand' }, 'auction-ops console'),
    h('p', { class: 'who' }, `Signed in as ${email}`),
    h('button', { type: 'button', onclick: (() => void signOut()) as EventListener }, 'Sign out'),
  );
  root.replaceChildren(header, nav, main);
  document.title = `${page.title} · auction-ops console`;
  try {
    await page.render(main, params);
    // A refusal may have replaced the layout meanwhile; a detached page must not claim to be shown.
    if (!main.isConnected && document.body.dataset.ready === page.id) delete document.body.dataset.ready;
  } catch (error) {
    main.replaceChildren(h('h1', {}, page.title), notice((error as Error).message, 'alert'));
  }
}
