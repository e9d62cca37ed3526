/** The boundaries of docs/architecture.md, checked by `npm run lint` (issue 26). */
module.exports = {
  forbidden: [
    {
      name: 'layers-know-no-module',
      comment: 'common/, db/ and platform/ never import modules/; db/schema.ts alone names the table types.',
      severity: 'error',
      from: { path: '^src/(common|db|platform)/', pathNot: '^src/db/schema\\.ts$' },
      to: { path: '^src/modules/' }
    },
    {
      name: 'schema-names-only-table-types',
      comment: "db/schema.ts assembles the database type from each module's *.table.ts, and imports nothing else of a module.",
      severity: 'error',
      from: { path: '^src/db/schema\\.ts$' },
      to: { path: '^src/modules/', pathNot: '^src/modules/[^/]+/[^/]+\\.table\\.ts$', dependencyTypesNot: ['type-only'] }
    },
    {
      name: 'migrations-are-frozen',
      comment: 'A migration imports nothing from modules/ or platform/: it keeps its own copy of what it needs.',
      severity: 'error',
      from: { path: '^src/db/migrations/' },
      to: { path: '^src/(modules|platform)/' }
    },
    {
      name: 'only-the-migrator-imports-migrations',
      severity: 'error',
      from: { pathNot: '^src/db/(migrator\\.ts|migrations/)' },
      to: { path: '^src/db/migrations/' }
    },
    {
      name: 'modules-meet-at-their-index',
      comment: "A module reaches another module only through that module's index.ts.",
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index\\.ts$'] }
    },
    {
      name: 'outside-reaches-modules-at-their-index',
      comment: 'The composition root, the CLI and the seed use a module through its index.ts too.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/modules/', '^src/db/schema\\.ts$'] },
      to: { path: '^src/modules/', pathNot: '^src/modules/[^/]+/index\\.ts$' }
    },
    {
      name: 'nothing-imports-the-app',
      comment: 'app.ts is the composition root: modules and layers never import it.',
      severity: 'error',
      from: { path: '^src/(modules|platform|db|common)/' },
      to: { path: '^src/app\\.ts$' }
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } }
    }
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] }
  }
}
