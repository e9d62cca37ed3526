import fs from 'node:fs'
import path from 'node:path'
import { waitUntil } from './browser.js'
import type { E2eServer } from './server.js'

/** The text of an RFC 822 message with quoted-printable soft breaks and escapes undone. */
function decoded(message: string): string {
  return message.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
}

/** The messages the dispatcher wrote to DATA_DIR/mail (no SMTP_URL, D-60), decoded. */
function mails(e2e: E2eServer): string[] {
  const dir = path.join(e2e.dataDir, 'mail')
  if (!fs.existsSync(dir)) return []
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.eml'))
    .map((name) => decoded(fs.readFileSync(path.join(dir, name), 'utf8')))
}

/**
 * Waits for the invitation e-mail to `email` (D-15) and answers its set-password link as a path
 * of this server (PUBLIC_URL names port 0 here: the server took its port after reading it).
 */
export async function invitationLink(e2e: E2eServer, email: string): Promise<string> {
  const mail = await waitUntil(
    async () => mails(e2e).find((text) => new RegExp(`^To: .*<?${email.replace(/[.]/g, '\\.')}>?$`, 'm').test(text)),
    (text) => text !== undefined,
    `an invitation e-mail to ${email}`
  )
  const link = /https?:\/\/[^\s"<>]+\/console\/set-password\?token=[A-Za-z0-9_%-]+/.exec(mail!)
  if (link === null) throw new Error(`the invitation to ${email} holds no set-password link:\n${mail}`)
  const url = new URL(link[0])
  return `${url.pathname}${url.search}`
}
