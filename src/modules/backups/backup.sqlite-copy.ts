import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'

/**
 * The copy's code, CommonJS, run with `eval` as db/sqlite-checkpointer.ts runs its worker (the same
 * under tsx and from dist). The backup API's steps, the integrity check and the counts run in a
 * worker thread, so a scheduled backup inside the API process never holds its event loop (D-91, D-92).
 * The read transaction keeps one snapshot for the whole copy: writes by the server between steps
 * neither restart the copy nor tear it (WAL: the writer goes on).
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
async function copy() {
  const source = new Database(workerData.file, { fileMustExist: true, timeout: 5000 })
  try {
    source.exec('BEGIN')
    source.prepare('SELECT count(*) FROM sqlite_schema').get()
    await source.backup(workerData.temporary, { progress: () => workerData.pagesPerStep })
    source.exec('COMMIT')
  } finally {
    source.close()
  }
  const copy = new Database(workerData.temporary, { fileMustExist: true })
  try {
    copy.pragma('journal_mode = DELETE')
    const check = copy.pragma('integrity_check', { simple: true })
    if (check !== 'ok') return { failed: 'the copy failed its integrity check: ' + String(check) }
    const count = (table) => copy.prepare('SELECT count(*) AS n FROM ' + table).get().n
    return { counts: { customers: count('customers'), orders: count('orders'), receipt_lines: count('receipt_lines') } }
  } finally {
    copy.close()
  }
}
copy().then(
  (answer) => parentPort.postMessage(answer),
  (error) => parentPort.postMessage({ error: String((error && error.message) || error) })
)
`

// Pages copied per step: a step holds the source's read lock only this long (D-91).
const PAGES_PER_STEP = 64

export interface RowCounts {
  readonly customers: number
  readonly orders: number
  readonly receipt_lines: number
}

type Answer = { counts: RowCounts } | { failed: string } | { error: string }

/** Copies the SQLite database `file` into `temporary` off the event loop; `failed` is a copy that is not sound. */
export function copySqlite(file: string, temporary: string): Promise<{ counts: RowCounts } | { failed: string }> {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3')
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, file, temporary, pagesPerStep: PAGES_PER_STEP } })
  return new Promise<Answer>((resolve, reject) => {
    worker.once('message', resolve)
    worker.once('error', reject)
    worker.once('exit', (code) => reject(new Error(`the backup thread ended with status ${code}`)))
  })
    .then((answer) => {
      if ('error' in answer) throw new Error(answer.error)
      return answer
    })
    .finally(() => void worker.terminate())
}
