import { messageOf } from './common/async.js'
import { configOrExit, serve } from './serve-command.js'

// The process entry of `npm start`: config → database → migrate → app → listen (ARCHITECTURE 1).
serve(configOrExit()).catch((error: unknown) => {
  process.stderr.write(`service-ordering: could not start: ${messageOf(error)}\n`)
  process.exit(1)
})
