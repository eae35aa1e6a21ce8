// Screenshots of the dashboard's pages, taken by the browser tests themselves: at a desktop size and at 360 px
// wide, in the light and the dark colour scheme, full page, into TERN_SCREENSHOTS_DIR when it is set (`npm run
// screenshots` sets docs/screenshots, where the README shows them); a run without it takes none, so the suite never
// rewrites committed files.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

const DIR = process.env.TERN_SCREENSHOTS_DIR;

export const DESKTOP = { width: 1280, height: 800 } as const;
export const PHONE = { width: 360, height: 740 } as const;

/**
 * `<name>-desktop.png`, `<name>-360.png`, `<name>-desktop-dark.png` and `<name>-360-dark.png` of the page as it is
 * now; the page is left at the desktop size in the light scheme.
 */
export async function screenshots(p: Page, name: string): Promise<void> {
  if (!DIR) return;
  mkdirSync(DIR, { recursive: true });
  for (const [scheme, schemeSuffix] of [
    ['light', ''],
    ['dark', '-dark'],
  ] as const) {
    await p.emulateMedia({ colorScheme: scheme });
    for (const [size, suffix] of [
      [PHONE, '360'],
      [DESKTOP, 'desktop'],
    ] as const) {
      await p.setViewportSize(size);
      await p.screenshot({ path: join(DIR, `${name}-${suffix}${schemeSuffix}.png`), fullPage: true, animations: 'disabled' });
    }
  }
  await p.emulateMedia({ colorScheme: 'light' });
}
