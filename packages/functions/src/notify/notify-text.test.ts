// The texts of notifications and e-mails: the 100-character cut, overdue durations, deep links, and templates
// rendered with escaping in HTML and as-is in text.
import { describe, expect, it } from 'vitest';
import { chatDeepLink, truncateBody } from './chat-plan.js';
import { formatOverdue } from './pending-check.js';
import { renderTemplate } from '../templates/template-renderer.js';

describe('truncateBody', () => {
  it('keeps up to 100 characters whole and cuts longer text to 99 plus an ellipsis', () => {
    expect(truncateBody('a'.repeat(100))).toBe('a'.repeat(100));
    expect(truncateBody('a'.repeat(101))).toBe(`${'a'.repeat(99)}…`);
  });
  it('counts code points, so an emoji is never split, and collapses whitespace', () => {
    const out = truncateBody(`${'🚗'.repeat(120)}`);
    expect(Array.from(out).length).toBe(100);
    expect(out).toBe(`${'🚗'.repeat(99)}…`);
    expect(truncateBody('  two\n\nlines  ')).toBe('two lines');
  });
});

describe('formatOverdue and chatDeepLink', () => {
  it('formats minutes as hours and minutes', () => {
    expect([0, 59, 60, 61, 150, 1440].map(formatOverdue)).toEqual([
      '0 min',
      '59 min',
      '1 h',
      '1 h 1 min',
      '2 h 30 min',
      '24 h',
    ]);
  });
  it('builds the app link without a doubled slash', () => {
    expect(chatDeepLink('https://app.test/', 'c1', 'm1')).toBe('https://app.test/chat/c1?message=m1');
  });
});

describe('renderTemplate', () => {
  it('escapes values in HTML and keeps them as they are in text', () => {
    const view = {
      inviter_name: 'Ann "A" O\'Neil',
      auction_name: '<script>x()</script>',
      app_name: 'auction-ops',
      role_label: 'Owner',
      role_description: 'Full access & more.',
      invite_url: 'https://app.test/invite?token=abc&x=1',
      expires_at_text: 'Monday',
    };
    const { text, html } = renderTemplate('invite-email', view);
    expect(text).toContain('Ann "A" O\'Neil has invited you to join <script>x()</script> on auction-ops as Owner.');
    expect(text).toContain('Full access & more.');
    expect(html).toContain('<strong>Ann &#34;A&#34; O&#39;Neil</strong>');
    expect(html).toContain('<strong>&#60;script&#62;x()&#60;/script&#62;</strong>');
    expect(html).toContain('href="https://app.test/invite?token=abc&#38;x=1"');
    expect(html).not.toContain('<script>');
  });
});
