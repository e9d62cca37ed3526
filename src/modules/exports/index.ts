// The exports module: `service-ordering export` writes a shop's data as CSV files (D-94).
export { EXPORT_USAGE, exportCommand } from './export.command.js'
