// An accessibility check of the page a real browser shows: axe-core's own script run inside the page (through
// the DevTools protocol, so the page's Content-Security-Policy stays as it is), its serious and critical
// violations returned as lines a test failure can print.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[] }>;
}

/** "rule (impact): help — selectors" for each serious or critical violation on the page as it is now. */
export async function seriousViolations(p: Page): Promise<string[]> {
  await p.evaluate(AXE_SOURCE);
  const violations = await p.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(o: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run({ resultTypes: ['violations'] });
    return result.violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
}
