/**
 * The text of a JSON number as written in `raw`, at `path` (object keys from the top), or
 * undefined when the value there is not a number or the text cannot be read. `raw` is expected to
 * be JSON that `JSON.parse` accepted; like it, the last of duplicate keys wins. Only the objects on
 * the path are walked into; every other value is skipped without recursion, so depth costs nothing.
 *
 * Why: a JSON number beyond 2^53 loses digits in `JSON.parse`, and a card number (D-34) may be
 * sent as one (the spec types `cc_number` as a number).
 */
export function numberTextAt(raw: string, path: readonly string[]): string | undefined {
  try {
    const reader = new JsonReader(raw)
    reader.whitespace()
    return reader.find(path, 0)
  } catch {
    return undefined
  }
}

const CARD_NUMBER_PATH = ['customer', 'creditcard', 'cc_number'] as const

/**
 * The exact digits of an update's `cc_number` sent as a JSON number too large for `JSON.parse` to
 * keep (D-34), read from the raw body. Undefined unless the raw text is plain digits that parse to
 * the very number the body holds, so a mismatch can never slip a different card number through.
 */
export function cardNumberDigits(raw: string | undefined, parsed: number): string | undefined {
  if (raw === undefined) return undefined
  const text = numberTextAt(raw, CARD_NUMBER_PATH)
  if (text === undefined || !/^[0-9]+$/.test(text) || Number(text) !== parsed) return undefined
  return text
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r', '\ufeff'])
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y

class Unreadable extends Error {}

class JsonReader {
  private at = 0

  constructor(private readonly text: string) {}

  whitespace(): void {
    while (this.at < this.text.length && WHITESPACE.has(this.text[this.at]!)) this.at++
  }

  private expect(char: string): void {
    if (this.text[this.at] !== char) throw new Unreadable()
    this.at++
  }

  /** The value at the reader is walked into along `path` from `level`; returns the number text found. */
  find(path: readonly string[], level: number): string | undefined {
    if (level === path.length) {
      NUMBER.lastIndex = this.at
      const match = NUMBER.exec(this.text)
      if (match === null) {
        this.skipValue()
        return undefined
      }
      this.at += match[0].length
      return match[0]
    }
    if (this.text[this.at] !== '{') {
      this.skipValue()
      return undefined
    }
    this.at++
    let found: string | undefined
    this.whitespace()
    if (this.text[this.at] === '}') {
      this.at++
      return undefined
    }
    for (;;) {
      this.whitespace()
      const start = this.at
      const key = JSON.parse(this.text.slice(start, this.stringEnd())) as string
      this.whitespace()
      this.expect(':')
      this.whitespace()
      // Each occurrence replaces the one before, as in JSON.parse.
      if (key === path[level]) found = this.find(path, level + 1)
      else this.skipValue()
      this.whitespace()
      if (this.text[this.at] === ',') {
        this.at++
        continue
      }
      this.expect('}')
      return found
    }
  }

  /** The index just past the string starting at the reader; moves the reader there. */
  private stringEnd(): number {
    this.expect('"')
    for (;;) {
      const char = this.text[this.at]
      if (char === undefined) throw new Unreadable()
      this.at++
      if (char === '\\') this.at++
      else if (char === '"') break
    }
    return this.at
  }

  /** Moves past one value of any kind, counting brackets outside strings. */
  private skipValue(): void {
    let depth = 0
    do {
      const char = this.text[this.at]
      if (char === undefined) throw new Unreadable()
      if (char === '"') {
        this.stringEnd()
        continue
      }
      if (char === '{' || char === '[') depth++
      else if (char === '}' || char === ']') depth--
      else if (depth === 0 && (char === ',' || WHITESPACE.has(char))) return
      this.at++
    } while (depth > 0 || !this.atValueEnd())
  }

  private atValueEnd(): boolean {
    const char = this.text[this.at]
    return char === undefined || char === ',' || char === '}' || char === ']' || WHITESPACE.has(char)
  }
}
