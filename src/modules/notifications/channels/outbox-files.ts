import fs from 'node:fs/promises'
import path from 'node:path'

/**
 * Writes one message file named after its event id, atomically (temporary file, then rename), so a
 * redelivery replaces the same file instead of adding a second one and a crash never leaves half a
 * file. Mode 0600: reset links travel in e-mails.
 */
export async function writeMessageFile(dir: string, eventId: string, extension: string, content: string | Buffer): Promise<string> {
  await fs.mkdir(dir, { recursive: true })
  const file = path.join(dir, `${eventId}.${extension}`)
  const temporary = `${file}.${process.pid}.tmp`
  await fs.writeFile(temporary, content, { mode: 0o600 })
  await fs.rename(temporary, file)
  return file
}
