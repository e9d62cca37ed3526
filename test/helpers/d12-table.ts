import fs from 'node:fs'
import path from 'node:path'
import { ROOT } from './processes.js'

/** The caller classes of D-12 (admin may call everything staff may). */
export type CallerClass = 'app' | 'customer' | 'staff'

/**
 * One cell of D-12: `yes`; `no` (403); `own` (a customer's own records only: another's is 404 as
 * a missing one, D-11); `own-else-403` (create transaction: another customer's id is 403).
 */
export type Access = 'yes' | 'no' | 'own' | 'own-else-403'

export type D12Table = Record<string, Record<CallerClass, Access>>

/** Where the rulings are: `shared/spec/` beside the clone (as CI lays it out), or SPEC_DIR. */
export const DECISIONS_FILE = path.join(process.env.SPEC_DIR ?? path.resolve(ROOT, '..', 'shared', 'spec'), 'decisions.md')

/**
 * What a cell of the table says, from its words: "yes", "no", "own `customer_id` only (else 403)",
 * "own record only", "own only", "own, open; …". Anything else is a table this test does not know
 * how to read, and fails loudly rather than guess.
 */
export function accessOfCell(text: string): Access {
  const cell = text.trim()
  if (cell === 'yes') return 'yes'
  if (cell === 'no') return 'no'
  if (/^own\b/.test(cell)) return /\(else 403\)/.test(cell) ? 'own-else-403' : 'own'
  throw new Error(`D-12: cannot read the cell ${JSON.stringify(cell)}`)
}

/**
 * The table of D-12 as decisions.md writes it: `| operation | app | customer | staff |` and its
 * rows, keyed by the operation cell's text. Throws when the table is not where D-12 says it is.
 */
export function parseD12(markdown: string): D12Table {
  const start = markdown.indexOf('- D-12 ')
  if (start === -1) throw new Error('decisions.md has no D-12')
  const lines = markdown.slice(start).split('\n')
  const header = lines.findIndex((line) => /^\|\s*operation\s*\|/.test(line))
  if (header === -1) throw new Error('D-12 has no table')
  const columns = cells(lines[header]!)
  const expected: CallerClass[] = ['app', 'customer', 'staff']
  if (JSON.stringify(columns.slice(1)) !== JSON.stringify(expected)) throw new Error(`D-12's columns are ${columns.join(', ')}`)
  const table: D12Table = {}
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break
    const [operation, app, customer, staff] = cells(line)
    table[operation!] = { app: accessOfCell(app!), customer: accessOfCell(customer!), staff: accessOfCell(staff!) }
  }
  if (Object.keys(table).length === 0) throw new Error('D-12 has an empty table')
  return table
}

function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((cell) => cell.trim())
}

/** D-12 read from decisions.md, or undefined when the file is not beside this clone. */
export function readD12(): D12Table | undefined {
  if (!fs.existsSync(DECISIONS_FILE)) return undefined
  return parseD12(fs.readFileSync(DECISIONS_FILE, 'utf8'))
}
