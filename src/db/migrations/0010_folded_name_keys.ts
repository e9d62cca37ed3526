import type { Kysely } from 'kysely'
import type { Dialect } from '../dialect.js'

const PAGE = 1000

/**
 * Search keys fold accents and case fully since this migration (D-33, `nameKey`): before, they
 * were lower-cased only, so "jose" missed José and Ölund sorted after z. Every customer's
 * `first_name_lc` and `last_name_lc` is computed again, in pages by id; changing them rebuilds the
 * customer's rows of `customer_name_prefixes` through its update trigger (0008). Keys that are
 * already right (most: plain letters) are not written.
 */
export async function up(db: Kysely<any>, _d: Dialect): Promise<void> {
  let after = ''
  for (;;) {
    const rows: Array<{ id: string; first_name: string; last_name: string; first_name_lc: string; last_name_lc: string }> = await db
      .selectFrom('customers')
      .select(['id', 'first_name', 'last_name', 'first_name_lc', 'last_name_lc'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(PAGE)
      .execute()
    for (const row of rows) {
      const first = nameKey(row.first_name)
      const last = nameKey(row.last_name)
      if (first === row.first_name_lc && last === row.last_name_lc) continue
      await db.updateTable('customers').set({ first_name_lc: first, last_name_lc: last }).where('id', '=', row.id).execute()
    }
    if (rows.length < PAGE) return
    after = rows[rows.length - 1]!.id
  }
}

// The name key of D-33 as this migration applied it: a frozen copy, so the migration never changes
// when customers/name-key.ts does (a later change of the key is a migration of its own).
function nameKey(name: string): string {
  // Most names are plain ASCII letters: no folding beyond lower case can change them.
  if (PLAIN.test(name)) return name.toLowerCase()
  const cased = name.normalize('NFC').replace(APOSTROPHES, "'").replace(FORMAT, '').toLowerCase().toUpperCase().toLowerCase()
  let key = ''
  for (const char of cased) key += foldChar(char)
  return key.normalize('NFC')
}

// Printable ASCII but the backtick, which is folded to an apostrophe.
const PLAIN = /^[\u0020-\u005f\u0061-\u007e]*$/
const APOSTROPHES = /[\u0060\u00b4\u02b9\u02bb\u02bc\u02bd\u2018\u2019\u201b\u2032\uff07]/g
const FORMAT = /\p{Cf}/gu
const MARKS = /[\u0300-\u036f\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed]/g
const WHITE = /\s/
const SPELLED: Readonly<Record<string, string>> = {
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  ħ: 'h',
  ŧ: 't',
  þ: 'th',
  ŀ: 'l',
  ς: 'σ'
}
const SPELLED_LETTERS = new RegExp(`[${Object.keys(SPELLED).join('')}]`, 'g')

function foldChar(char: string): string {
  if (char === 'й') return char
  const compatible = char.normalize('NFKD')
  if (compatible.includes(' ') && !WHITE.test(char)) return char
  // Mathematical and similar letters have no case of their own until they are plain letters.
  return compatible
    .replace(MARKS, '')
    .toLowerCase()
    .replace(SPELLED_LETTERS, (letter) => SPELLED[letter]!)
}
