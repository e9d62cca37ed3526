# syntax=docker/dockerfile:1
# service-ordering: the API and its dispatcher worker in one image (issue 10).
#
#   docker build -t service-ordering .
#   docker run --rm -p 3000:3000 -e DATABASE_URL=postgres://… -e CARD_ENCRYPTION_KEY=… service-ordering
#   docker run --rm -e DATABASE_URL=… -e CARD_ENCRYPTION_KEY=… service-ordering worker
#
# The entry point is the CLI (`service-ordering`), so any command of it runs the same way:
# `serve` (the default, also `serve --workers N`), `worker`, `migrate`, `api-key create …`.

ARG NODE_VERSION=20

# 1. deps: every dependency from the lock file. The full bookworm image carries python3, make and
#    g++, which better-sqlite3 needs when no prebuilt binary fits; it is the same Debian release
#    (and glibc) as the runtime image below, so the compiled module runs there.
FROM node:${NODE_VERSION}-bookworm AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund

# 2. build: TypeScript into dist/ and the web console into dist/web (`npm run build`), then drop
#    the development dependencies so only what runs is copied on.
FROM deps AS build
COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

# 3. runtime: slim Node, production dependencies and the build only, run by the unprivileged
#    `node` user of the base image. The code belongs to root and cannot be changed by the process;
#    only DATA_DIR (/app/data) is writable (first-start key file, e-mail and text file fallbacks).
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
# MALLOC_ARENA_MAX: glibc gives each thread (libuv's pool, V8's helpers) a malloc arena of its own and
# rarely returns them; two arenas cost no throughput here and ~40 MiB less RSS (BENCHMARKS.md).
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/app/data
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/assets ./assets
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
# D-71: /healthz says the process is alive. The slim image has no curl: Node's fetch asks instead.
# (`worker` has no HTTP port; its containers turn this check off, see compose.yaml.)
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The same flags as `npm start`; cluster workers (serve --workers N) inherit them.
ENTRYPOINT ["node", "--max-semi-space-size=4", "--heap-growing-percent=30", "--single-threaded-gc", "dist/cli.js"]
CMD ["serve"]
