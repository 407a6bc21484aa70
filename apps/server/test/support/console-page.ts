// Driving the admin console (/console) from Playwright: sign in through its form, open a page by its hash and
// wait until it has painted its data (the page marks that with performance.mark and body[data-ready]).
import type { Page } from 'playwright-core';

export async function consoleSignIn(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/console`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Opens a console page by a fresh navigation and waits for its data. */
export async function openConsolePage(page: Page, baseUrl: string, id: string, query = ''): Promise<void> {
  // A change of the hash alone keeps the document: the mark of the page shown before must not count.
  await page.evaluate('delete document.body?.dataset.ready');
  await page.goto(`${baseUrl}/console#/${id}${query}`);
  await page.waitForSelector(`body[data-ready="${id}"]`);
}

/** Milliseconds from navigation start to the page's first contentful paint and to its data painted. */
export async function paintTimings(page: Page, id: string): Promise<{ fcp: number; ready: number }> {
  return page.evaluate((mark) => {
    const fcp = performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN;
    const ready = performance.getEntriesByName(mark)[0]?.startTime ?? Number.NaN;
    return { fcp, ready };
  }, `console-ready:${id}`);
}
