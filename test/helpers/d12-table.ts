import fs from 'node:fs'
import path from 'node:path'
import { ROOT } from './processes.js'

/** The caller classes of D-12 and D-18: `admin` is the admin role only, as a key or a staff user (D-18). */
export type CallerClass = 'app' | 'customer' | 'staff' | 'admin'

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
 * A table of callers as decisions.md writes it under `ruling` (`| operation | app | customer | staff |`,
 * D-18 with an `admin` column too) and its rows, keyed by the operation cell's text. Throws when the
 * table is not where the ruling says it is, or has other columns.
 */
function parseCallerTable(
  markdown: string,
  ruling: 'D-12' | 'D-18',
  columns: readonly CallerClass[]
): Record<string, Partial<Record<CallerClass, Access>>> {
  const start = markdown.indexOf(`- ${ruling} `)
  if (start === -1) throw new Error(`decisions.md has no ${ruling}`)
  const lines = markdown.slice(start).split('\n')
  const header = lines.findIndex((line) => /^\|\s*operation\s*\|/.test(line))
  if (header === -1) throw new Error(`${ruling} has no table`)
  const found = cells(lines[header]!)
  if (JSON.stringify(found.slice(1)) !== JSON.stringify(columns)) throw new Error(`${ruling}'s columns are ${found.join(', ')}`)
  const table: Record<string, Partial<Record<CallerClass, Access>>> = {}
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break
    const [operation, ...values] = cells(line)
    table[operation!] = Object.fromEntries(columns.map((column, i) => [column, accessOfCell(values[i]!)]))
  }
  if (Object.keys(table).length === 0) throw new Error(`${ruling} has an empty table`)
  return table
}

/**
 * The table of D-12 as decisions.md writes it: `| operation | app | customer | staff |` and its
 * rows, keyed by the operation cell's text. D-12 says admin may call everything staff may: each
 * row's `admin` is its `staff`.
 */
export function parseD12(markdown: string): D12Table {
  const rows = parseCallerTable(markdown, 'D-12', ['app', 'customer', 'staff'])
  return Object.fromEntries(
    Object.entries(rows).map(([operation, row]) => [operation, { ...row, admin: row.staff } as Record<CallerClass, Access>])
  )
}

/** The table of D-18 (operations added after D-12), with its `admin` column: `| operation | app | customer | staff | admin |`. */
export function parseD18(markdown: string): D12Table {
  return parseCallerTable(markdown, 'D-18', ['app', 'customer', 'staff', 'admin']) as D12Table
}

function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((cell) => cell.trim())
}

/** D-12 and D-18 read from decisions.md, as one table, or undefined when the file is not beside this clone. */
export function readD12(): D12Table | undefined {
  if (!fs.existsSync(DECISIONS_FILE)) return undefined
  const markdown = fs.readFileSync(DECISIONS_FILE, 'utf8')
  return { ...parseD12(markdown), ...parseD18(markdown) }
}
