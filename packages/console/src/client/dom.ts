// A tiny element builder: text always goes in as text nodes (never HTML), so data shown from the database cannot
// inject markup.

type Child = Node | string | number | null | undefined | false;
type Attributes = Record<string, string | number | boolean | EventListener | undefined>;

export function h(tag: string, attributes: Attributes = {}, ...children: Child[]): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.replace(/^on/, ''), value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

/**
 * A table with a caption and column headers; each row is a list of cells. Each cell carries its column's name
 * (data-label), so that on a phone's width the rows stack into cards with their actions on screen (console.css).
 */
export function dataTable(caption: string, headers: string[], rows: Child[][]): HTMLElement {
  return h(
    'div',
    { class: 'table-wrap stacked' },
    h(
      'table',
      {},
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, ...headers.map((name) => h('th', { scope: 'col' }, name)))),
      h(
        'tbody',
        {},
        ...rows.map((cells) => h('tr', {}, ...cells.map((cell, i) => h('td', { 'data-label': headers[i] }, cell)))),
      ),
    ),
  );
}

/** A table captioned with how many items it lists, or `empty` when there are none. */
export function countedTable<T>(
  items: T[],
  noun: string,
  empty: string,
  headers: string[],
  row: (item: T) => Child[],
): HTMLElement {
  if (items.length === 0) return notice(empty);
  return dataTable(`${items.length} ${noun}${items.length === 1 ? '' : 's'}`, headers, items.map(row));
}

/** A labelled search field whose text goes into the page's hash (so a search can be linked and reloaded). */
export function searchForm(page: string, label: string, query: string): HTMLElement {
  const input = h('input', { type: 'search', id: 'search', name: 'q', value: query }) as HTMLInputElement;
  return h(
    'form',
    {
      role: 'search',
      onsubmit: ((event: Event) => {
        event.preventDefault();
        const text = input.value.trim();
        location.hash = text ? `#/${page}?q=${encodeURIComponent(text)}` : `#/${page}`;
      }) as EventListener,
    },
    h('label', { for: 'search' }, label),
    input,
    h('button', { type: 'submit' }, 'Search'),
  );
}

/** A status line announced to screen readers; errors use role=alert. */
export function notice(text: string, kind: 'status' | 'alert' = 'status'): HTMLElement {
  return h('p', { role: kind, class: kind === 'alert' ? 'notice error' : 'notice' }, text);
}

export function when(value: string | null | undefined): string {
  return value ? new Date(value).toLocaleString() : '—';
}

/** Marks a page as painted with its data, for the browser's own timing (performance.getEntriesByName). */
export function markReady(page: string): void {
  performance.mark(`console-ready:${page}`);
  document.body.dataset.ready = page;
}
