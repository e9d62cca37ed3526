import { encrypt } from '../../common/crypto.js'
import { problems } from '../../platform/problems.js'

/** The five card fields of the spec, in the order a partial card lists the missing ones (D-34). */
const CARD_FIELDS = ['cc_name', 'cc_number', 'cc_expiration', 'cc_cvv', 'cc_zip'] as const

/** A card as sent: every field optional, so a partial card can be told apart from a wrong one. */
export interface CardInput {
  cc_name?: string
  cc_number?: number | string
  cc_expiration?: string
  cc_cvv?: number | string
  cc_zip?: string
}

/** A card that passed every rule of D-34. The security code is checked and then dropped. */
export interface CheckedCard {
  name: string
  number: string
  /** `MM/YYYY`. */
  expiration: string
  zip: string
}

/** What is stored of a card (D-34): the number only sealed, beside its last four and expiry. */
export interface SealedCard {
  card_ciphertext: string
  card_last4: string
  card_expiration: string
}

// Cards are not issued for longer than this; a later expiry is a typing mistake.
const MAX_YEARS_AHEAD = 20

/** True when the digits pass the Luhn check. */
export function passesLuhn(digits: string): boolean {
  let sum = 0
  let double = false
  for (let i = digits.length - 1; i >= 0; i--) {
    let digit = digits.charCodeAt(i) - 48
    if (double) {
      digit *= 2
      if (digit > 9) digit -= 9
    }
    sum += digit
    double = !double
  }
  return sum % 10 === 0
}

/**
 * The digits of a card number. Text may group digits with spaces or hyphens; a JSON number must be
 * a safe integer, unless `exactDigits` (its digits recovered from the raw body) is given.
 * Undefined when the value is not a card number's digits. Never echoes the value in errors.
 */
function numberDigits(value: number | string, exactDigits: string | undefined): string | undefined {
  if (typeof value === 'string') {
    if (!/^[0-9]+(?:[ -][0-9]+)*$/.test(value)) return undefined
    return value.replace(/[ -]/g, '')
  }
  if (Number.isSafeInteger(value) && value >= 0) return String(value)
  return exactDigits
}

function cvvDigits(value: number | string): string | undefined {
  // As a JSON number a leading zero cannot be written, so such codes must be sent as text.
  const text = typeof value === 'number' ? (Number.isSafeInteger(value) && value >= 0 ? String(value) : '') : value
  return /^[0-9]{3,4}$/.test(text) ? text : undefined
}

/** Why an `MM/YYYY` expiry cannot be used at `now`, or undefined when it can (D-34). */
function expirationProblem(value: string, now: number): string | undefined {
  const match = /^(0[1-9]|1[0-2])\/([0-9]{4})$/.exec(value)
  if (match === null) return 'must be MM/YYYY'
  const month = Number(match[1])
  const year = Number(match[2])
  const today = new Date(now)
  const current = today.getUTCFullYear() * 12 + today.getUTCMonth() + 1
  const expires = year * 12 + month
  // A card is good through the last day of its expiry month.
  if (expires < current) return 'is in the past'
  if (year > today.getUTCFullYear() + MAX_YEARS_AHEAD) return `must be within ${MAX_YEARS_AHEAD} years`
  return undefined
}

/**
 * Checks a card against D-34: all five fields (else 400 `partial_card` naming each missing one),
 * then the number (12 to 19 digits, Luhn), expiry (`MM/YYYY`, not past), security code (3 or 4
 * digits), billing zip (five digits) and name (else 400 `invalid_card`). Messages name the rule,
 * never the value. `exactDigits` are the number's digits as written, for numbers beyond 2^53.
 */
export function checkCard(input: CardInput, now: number, exactDigits?: string): CheckedCard {
  const missing = CARD_FIELDS.filter((field) => input[field] === undefined)
  if (missing.length > 0) throw problems.partialCard(missing)
  const { cc_name, cc_number, cc_expiration, cc_cvv, cc_zip } = input as Required<CardInput>

  const number = numberDigits(cc_number, exactDigits)
  if (number === undefined) throw problems.invalidCard('cc_number', 'must be the digits of the card number')
  if (number.length < 12 || number.length > 19) throw problems.invalidCard('cc_number', 'must have 12 to 19 digits')
  if (!passesLuhn(number)) throw problems.invalidCard('cc_number', 'does not pass the Luhn check')

  const expirationIssue = expirationProblem(cc_expiration, now)
  if (expirationIssue !== undefined) throw problems.invalidCard('cc_expiration', expirationIssue)

  if (cvvDigits(cc_cvv) === undefined) throw problems.invalidCard('cc_cvv', 'must be 3 or 4 digits')

  if (!/^[0-9]{5}$/.test(cc_zip)) throw problems.invalidCard('cc_zip', 'must be five digits')

  const name = cc_name.trim().replace(/\s+/g, ' ')
  if (name === '') throw problems.invalidCard('cc_name', 'must not be empty')

  return { name, number, expiration: cc_expiration, zip: cc_zip }
}

/**
 * Seals a checked card for storage (D-34): number, name and billing zip encrypted together with
 * AES-256-GCM under the card key; only the last four digits and the expiry stay readable.
 */
export function sealCard(key: Buffer, card: CheckedCard): SealedCard {
  return {
    card_ciphertext: encrypt(key, JSON.stringify({ number: card.number, name: card.name, zip: card.zip })),
    card_last4: card.number.slice(-4),
    card_expiration: card.expiration
  }
}
