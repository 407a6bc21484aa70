// The one HTML document of the console: the hashed script and style sheet, and the public settings the browser
// code needs (the anon key is public by design; it only lets requests through the API-key gate).
import type { ClientBundle } from './client-bundle.js';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => ESCAPES[ch]);

// Inline (the policy allows data: images), so the browser asks for no /favicon.ico that would answer 404.
const FAVICON = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#1d4ed8"/><path d="M4 12 8 4l4 8" fill="none" stroke="#fff" stroke-width="2"/></svg>',
)}`;

export function pageShell(bundle: ClientBundle, anonKey: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>auction-ops console</title>
<link rel="icon" href="${FAVICON}">
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
