import assert from 'node:assert/strict'
import { AxeBuilder } from '@axe-core/playwright'
import type { Page } from 'playwright-core'

/**
 * Runs axe (WCAG 2.x A and AA rules and axe's best practices) on the page as it is now: no violation
 * of impact serious or critical may be there; the others are printed for a person to judge.
 */
export async function assertAccessible(page: Page, name: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze()
  const line = (v: (typeof results.violations)[number]) =>
    `${v.impact ?? 'unknown'} ${v.id}: ${v.help} (${v.nodes
      .slice(0, 3)
      .map((n) => n.target.join(' '))
      .join(', ')}${v.nodes.length > 3 ? ', …' : ''})`
  const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map(line)
  const minor = results.violations.filter((v) => v.impact !== 'serious' && v.impact !== 'critical').map(line)
  for (const text of minor) process.stdout.write(`# axe on ${name}: ${text}\n`)
  assert.deepEqual(serious, [], `axe on ${name}: serious or critical violations`)
}
