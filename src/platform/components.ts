import Type, { type Static, type TSchema } from 'typebox'
import type { App } from './app-types.js'

// Shared schemas: each has an `$id`, is registered once per scope (`useSchemas`) and is referred to
// with `Ref`; Fastify's serialiser resolves the references, and the OpenAPI document lists each
// schema once under `components.schemas`, named by its `$id` (openapi.ts).

/** The `$id` of a schema meant to be shared (a component of the OpenAPI document). */
function idOf(schema: TSchema): string {
  const id = (schema as { $id?: unknown }).$id
  if (typeof id !== 'string') throw new Error('a shared schema needs an $id')
  return id
}

/** A reference to a named schema (its `$id`), typed as that schema; the schema must be visible to the route (`useSchemas`). */
export function Ref<T extends TSchema>(schema: T) {
  return Type.Unsafe<Static<T>>({ $ref: idOf(schema) })
}

/**
 * Makes named schemas visible to the routes registered on `app` from now on: Fastify's serialiser
 * resolves their `Ref`s, and the OpenAPI document lists each once under `components.schemas`.
 * One already visible (from a parent scope) is left as it is. Call it before the scope registers
 * child scopes: Fastify hands a scope's schemas down to its children, and refuses a second copy.
 */
export function useSchemas(app: App, schemas: readonly TSchema[]): void {
  for (const schema of schemas) if (app.getSchema(idOf(schema)) === undefined) app.addSchema(schema)
}

/** A string every answer holds exactly (`const`); typed as a plain string, as the views write it. */
export function Constant(value: string, description?: string) {
  return Type.Unsafe<string>({ type: 'string', const: value, ...(description === undefined ? {} : { description }) })
}

/** An instant as answers write it: ISO-8601 in UTC with milliseconds (`Date.toISOString`). */
export function Instant(description = 'ISO-8601 UTC.') {
  return Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$', description })
}
