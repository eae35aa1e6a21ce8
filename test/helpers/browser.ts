// A real browser for tests: Debian's Chromium (/usr/bin/chromium, installed by .ci/run) driven headless by
// playwright-core, in a fresh profile directory removed on close. playwright-core never downloads a browser of
// its own; without Chromium installed the test fails saying so.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.TERN_TEST_CHROMIUM ?? '/usr/bin/chromium';

/** No sandbox (CI runs as root), no GPU, and nothing that reaches the network on its own. */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
] as const;

export interface TestBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function startBrowser(): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`Chromium not found at ${CHROMIUM_PATH}: apt-get install -y chromium (.ci/run installs it)`);
  const profile = mkdtempSync(join(tmpdir(), 'tern-chromium-'));
  try {
    const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM_PATH, headless: true, args: [...CHROMIUM_FLAGS], timeout: 60_000 });
    // The whole suite shares two cores: a page may wait longer than playwright's 30 s default there.
    context.setDefaultTimeout(60_000);
    return {
      context,
      async close() {
        await context.close();
        rmSync(profile, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(profile, { recursive: true, force: true });
    throw err;
  }
}

/** Signs in on the sign-in page of `baseUrl` and waits for the page it lands on (`lands` says which path). */
export async function signInInBrowser(p: Page, baseUrl: string, email: string, password: string, lands: (path: string) => boolean): Promise<void> {
  await p.goto(`${baseUrl}/wp-login.php`);
  await p.fill('#email', email);
  await p.fill('#password', password);
  await Promise.all([p.waitForURL((url) => lands(url.pathname)), p.click('#sign-in')]);
}
