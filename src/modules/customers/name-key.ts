/**
 * The copy of a name (or of a query word) that search compares by prefix and sorts by (D-33): what a
 * person typing a name would not tell apart is folded together, so that "jose" finds José, "strasse"
 * Straße, "ismail" İsmail, "lodz" Łódź and "o'brien" O’Brien, and Ölund sorts among the o's, not after z.
 *
 * - Case: lower-, upper- then lower-casing folds what lower-casing alone keeps apart (ß, ẞ and SS;
 *   İ and i; final ς and σ, mapped below).
 * - Compatibility forms become their letters (ligatures, full-width and mathematical letters), one
 *   character at a time: a character whose compatibility form holds a space (a spacing accent such as
 *   ´, a ligature such as ﷺ) stays as it is, or one name would turn into two words.
 * - Accents go: the combining marks of Latin, Greek and Cyrillic letters, and the optional vowel points
 *   of Hebrew and Arabic. Marks elsewhere (Indic vowel signs and viramas) are parts of letters and stay.
 * - Latin letters with a stroke or joined, which have no decomposition, are spelled as people type them
 *   (ł l, ø o, đ d, æ ae, œ oe, …), and every apostrophe is the ASCII one.
 * - Invisible format characters (zero-width spaces, direction marks) go.
 * - й is a letter of its own in Russian, not и with an accent: it stays.
 */
export function nameKey(name: string): string {
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
