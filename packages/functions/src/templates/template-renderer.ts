// E-mail templates are files beside this module, one `.txt` and one `.html` per template (Mustache). The HTML
// version escapes every value (an auction named `<script>` shows as text); the text version inserts values as they
// are. Templates are read once and cached.
import { readFileSync } from 'node:fs';
import Mustache from 'mustache';

type TemplateName = 'invite-email' | 'account-deletion-email';

interface RenderedMail {
  text: string;
  html: string;
}

const cache = new Map<string, string>();

function load(file: string): string {
  let text = cache.get(file);
  if (text === undefined) {
    text = readFileSync(new URL(`./${file}`, import.meta.url), 'utf8');
    cache.set(file, text);
  }
  return text;
}

/** HTML escaping for text and quoted attribute values (the templates quote every attribute). */
function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

export function renderTemplate(name: TemplateName, view: Record<string, unknown>): RenderedMail {
  return {
    text: Mustache.render(load(`${name}.txt`), view, undefined, { escape: (s: unknown) => String(s) }),
    html: Mustache.render(load(`${name}.html`), view, undefined, { escape: (s: unknown) => escapeHtml(String(s)) }),
  };
}
