import assert from 'node:assert/strict'
import type { TestApp } from '../../helpers/app.js'
import { ok } from '../../helpers/assertions.js'

/** The spec's service statistics answer, read with the staff key. */
export async function readStats(t: TestApp): Promise<{ service_stats: { service: Record<string, unknown>[] }[] }> {
  return ok(await t.post('/v1/service/stats'))
}

/** The statistics entries of one service (found by its first entry's name), or undefined. */
export async function statsOf(t: TestApp, name: string): Promise<Record<string, unknown>[] | undefined> {
  const stats = await readStats(t)
  return stats.service_stats.find((s) => s.service[0]?.service_name === name)?.service
}

/** POST /v1/service/{name}/{position}, the name URL-encoded, with the staff key unless told. */
export function getStep(t: TestApp, name: string, position: string | number, auth?: string | null) {
  return t.post(`/v1/service/${encodeURIComponent(name)}/${position}`, undefined, auth === undefined ? {} : { auth })
}

/** The wire service_id of a service, read through its step 1 view. */
export async function serviceIdOf(t: TestApp, name: string): Promise<string> {
  const view = ok(await getStep(t, name, 1))
  assert.match(view.service_id, /^svc_[0-9a-z]{24}$/)
  return view.service_id
}

/** The step descriptions of a service in position order, read over HTTP (positions 1..N). */
export async function descriptionsOf(t: TestApp, name: string): Promise<string[]> {
  const first = ok(await getStep(t, name, 1))
  const total: number = first.progress_bar.total_steps
  const descriptions: string[] = []
  for (let position = 1; position <= total; position++) {
    const view = ok(await getStep(t, name, position))
    assert.equal(view.position.position_number, String(position))
    assert.equal(view.progress_bar.total_steps, total)
    descriptions.push(view.position.position_description)
  }
  assert.equal((await getStep(t, name, total + 1)).statusCode, 404)
  return descriptions
}

/** The stored positions of a service's step rows, sorted, and its stored step_count (straight from the tables). */
export async function storedPositions(t: TestApp, name: string): Promise<{ positions: number[]; stepCount: number }> {
  const service = await t.database.db
    .selectFrom('services')
    .select(['id', 'step_count'])
    .where('name_key', '=', name.toLowerCase())
    .executeTakeFirstOrThrow()
  const rows = await t.database.db
    .selectFrom('service_steps')
    .select('position')
    .where('service_id', '=', service.id)
    .orderBy('position')
    .execute()
  return { positions: rows.map((r) => Number(r.position)), stepCount: Number(service.step_count) }
}

/** 1, 2, …, n. */
export function oneTo(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i + 1)
}

/** ISO-8601 UTC as every answer writes instants. */
export const ISO = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$/

/** One service's element of POST /v1/catalogue/services (D-47); throws when it is not listed. */
export async function catalogueOf(t: TestApp, name: string): Promise<Record<string, any>> {
  const body = ok(await t.post('/v1/catalogue/services'))
  const service = body.services.find((s: { service_name: string }) => s.service_name === name)
  if (service === undefined) throw new Error(`no service ${name} in the catalogue`)
  return service
}
