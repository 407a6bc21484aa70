// The one HTML document of the console: the hashed script and style sheet, and the public settings the browser
// code needs (the anon key is public by design; it only lets requests through the API-key gate).
import type { ClientBundle } from './client-bundle.js';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => ESCAPES[ch]);

export function pageShell(bundle: ClientBundle, anonKey: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>auction-ops console</title>
<link rel="stylesheet" href="/console/assets/${bundle.style.name}">
<script type="module" src="/console/assets/${bundle.script.name}"></script>
</head>
<body data-anon-key="${escapeHtml(anonKey)}">
<noscript>The console needs JavaScript; everything it runs is served by this server.</noscript>
<div id="console"></div>
</body>
</html>
`;
}
