import type { StepEventPayload } from '../outbox.repository.js'
import { progressText } from './payloads.js'

/** An e-mail's subject and its two bodies (D-60). */
export interface EmailContent {
  subject: string
  text: string
  html: string
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Text made safe for HTML content and attribute values; names and descriptions are customer or staff input. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!)
}

// A header holds one line; input with line breaks must not start a second header.
function oneLine(value: string, max = 120): string {
  const line = value.replace(/[\r\n\t]+/g, ' ').trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

function greeting(name: string): string {
  return name === '' ? 'Hello,' : `Hello ${name},`
}

function page(title: string, body: string): string {
  return [
    '<!doctype html>',
    '<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">',
    `<title>${escapeHtml(title)}</title></head>`,
    '<body style="font-family: sans-serif; line-height: 1.5; color: #222; max-width: 36em;">',
    body,
    '</body></html>'
  ].join('\n')
}

/** The `email` event of a step: customer's name, service, step description, transaction code, progress. */
export function stepEmail(name: string, payload: StepEventPayload): EmailContent {
  const progress = progressText(payload)
  const percent = payload.total_steps > 0 ? Math.min(100, Math.round((payload.position / payload.total_steps) * 100)) : 0
  const subject = oneLine(`${payload.service_name}, ${progress}: ${payload.description}`)
  const text = [
    greeting(name),
    '',
    `Your ${payload.service_name} order ${payload.transaction_code} is now at ${progress}:`,
    '',
    `    ${payload.description}`,
    '',
    'Thank you,',
    'service-ordering',
    ''
  ].join('\n')
  const html = page(
    subject,
    [
      `<p>${escapeHtml(greeting(name))}</p>`,
      `<p>Your <strong>${escapeHtml(payload.service_name)}</strong> order <strong>${payload.transaction_code}</strong> is now at ${escapeHtml(progress)}:</p>`,
      `<p style="font-size: 1.2em;">${escapeHtml(payload.description)}</p>`,
      `<div style="background: #eee; border-radius: 4px; height: 8px;"><div style="background: #2a7; border-radius: 4px; height: 8px; width: ${percent}%;"></div></div>`,
      '<p>Thank you,<br>service-ordering</p>'
    ].join('\n')
  )
  return { subject, text, html }
}

/** D-15: the invitation of a new staff user, with their 72-hour link to set a password. */
export function staffInvitationEmail(name: string, link: string): EmailContent {
  const subject = 'Your staff account: set your password'
  const text = [
    greeting(name),
    '',
    'An account for the staff console has been made for you with this e-mail address.',
    'Open this link within 72 hours to set your password; then sign in with it:',
    '',
    link,
    '',
    'If you did not expect this, ignore this e-mail.',
    ''
  ].join('\n')
  const html = page(
    subject,
    [
      `<p>${escapeHtml(greeting(name))}</p>`,
      '<p>An account for the staff console has been made for you with this e-mail address. Open this link within 72 hours to set your password; then sign in with it:</p>',
      `<p><a href="${escapeHtml(link)}">Set your password</a></p>`,
      `<p style="font-size: 0.9em; color: #555;">${escapeHtml(link)}</p>`,
      '<p>If you did not expect this, ignore this e-mail.</p>'
    ].join('\n')
  )
  return { subject, text, html }
}

/** D-36: the password reset e-mail with its one-hour link. */
export function passwordResetEmail(name: string, link: string): EmailContent {
  const subject = 'Reset your password'
  const text = [
    greeting(name),
    '',
    'Someone, hopefully you, asked to reset the password of the account with this e-mail address.',
    'Open this link within one hour to choose a new password:',
    '',
    link,
    '',
    'If you did not ask for this, ignore this e-mail; your password stays as it is.',
    ''
  ].join('\n')
  const html = page(
    subject,
    [
      `<p>${escapeHtml(greeting(name))}</p>`,
      '<p>Someone, hopefully you, asked to reset the password of the account with this e-mail address. Open this link within one hour to choose a new password:</p>',
      `<p><a href="${escapeHtml(link)}">Choose a new password</a></p>`,
      `<p style="font-size: 0.9em; color: #555;">${escapeHtml(link)}</p>`,
      '<p>If you did not ask for this, ignore this e-mail; your password stays as it is.</p>'
    ].join('\n')
  )
  return { subject, text, html }
}
