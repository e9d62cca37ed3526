import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client'

/** A gauge whose value is read from the database when /metrics is scraped. */
export type GaugeSource = () => Promise<Array<{ labels: Record<string, string>; value: number }>>

/**
 * The process's Prometheus metrics (D-71). One registry per app, so several apps in one test
 * process never share counters.
 */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

interface RouteStats {
  labels: { route: string; method: string; status: string }
  buckets: Float64Array
  sum: number
  count: number
}

type MetricValue = { value: number; labels: Record<string, string | number>; metricName?: string }

/**
 * The process's Prometheus metrics (D-71). One registry per app, so several apps in one test
 * process never share counters.
 */
export class Metrics {
  readonly registry = new Registry()
  // Plain numbers per route, turned into Prometheus series only when /metrics is scraped: label
  // handling per observation would cost every request.
  private readonly routes = new Map<string, RouteStats>()
  // Gauges read from the database: read before each scrape (render), so a database that cannot be
  // reached costs those gauges, not the whole scrape (D-71: only /readyz reports the database).
  private readonly sources: Array<{ name: string; read: GaugeSource; values: Awaited<ReturnType<GaugeSource>>; up: number }> = []

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'service_ordering_' })
    this.registry.registerMetric(
      this.scraped('http_requests_total', 'HTTP requests answered, by route, method and status.', 'counter', () => this.requestValues())
    )
    const sources = this.sources
    new Gauge({
      name: 'metrics_source_up',
      help: 'Whether a gauge read from the database could be read at this scrape (1) or not (0: its series are left out).',
      labelNames: ['metric'],
      registers: [this.registry],
      collect() {
        this.reset()
        for (const source of sources) this.set({ metric: source.name }, source.up)
      }
    })
    this.registry.registerMetric(
      this.scraped(
        'http_request_duration_seconds',
        'Time from receiving a request to sending its response, by route and method.',
        'histogram',
        () => this.durationValues()
      )
    )
  }

  private scraped(name: string, help: string, type: 'counter' | 'histogram', values: () => MetricValue[]) {
    // prom-client types a metric as one of its own classes; a registry only calls get() and reset() of it.
    return {
      name,
      help,
      type,
      aggregator: 'sum',
      get: async () => ({ name, help, type, aggregator: 'sum', values: values() }),
      reset: () => this.routes.clear()
    } as unknown as Parameters<Registry['registerMetric']>[0]
  }

  private requestValues(): MetricValue[] {
    const values: MetricValue[] = []
    for (const stats of this.routes.values()) values.push({ value: stats.count, labels: stats.labels })
    return values
  }

  private durationValues(): MetricValue[] {
    const values: MetricValue[] = []
    const name = 'http_request_duration_seconds'
    for (const stats of this.routes.values()) {
      let cumulative = 0
      DURATION_BUCKETS.forEach((le, index) => {
        cumulative += stats.buckets[index]!
        values.push({ value: cumulative, labels: { le, ...stats.labels }, metricName: `${name}_bucket` })
      })
      values.push({ value: stats.count, labels: { le: '+Inf', ...stats.labels }, metricName: `${name}_bucket` })
      values.push({ value: stats.sum, labels: stats.labels, metricName: `${name}_sum` })
      values.push({ value: stats.count, labels: stats.labels, metricName: `${name}_count` })
    }
    return values
  }

  /** Records one answered request (D-71: counts and durations by route, method and status). */
  observeRequest(route: string, method: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`
    let stats = this.routes.get(key)
    if (stats === undefined) {
      stats = { labels: { route, method, status: String(status) }, buckets: new Float64Array(DURATION_BUCKETS.length), sum: 0, count: 0 }
      this.routes.set(key, stats)
    }
    let bucket = 0
    while (bucket < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[bucket]!) bucket++
    if (bucket < DURATION_BUCKETS.length) stats.buckets[bucket]! += 1
    stats.sum += seconds
    stats.count += 1
  }

  /** Adds a gauge computed at scrape time. */
  addGauge(name: string, help: string, labelNames: readonly string[], source: GaugeSource): void {
    const entry = { name, read: source, values: [] as Awaited<ReturnType<GaugeSource>>, up: 1 }
    this.sources.push(entry)
    new Gauge({
      name,
      help,
      labelNames: [...labelNames],
      registers: [this.registry],
      collect() {
        this.reset()
        for (const { labels, value } of entry.values) this.set(labels, value)
      }
    })
  }

  /** The Prometheus text of a scrape: the database gauges are read first, each on its own. */
  async render(): Promise<string> {
    await Promise.all(
      this.sources.map(async (source) => {
        try {
          source.values = await source.read()
          source.up = 1
        } catch {
          source.values = []
          source.up = 0
        }
      })
    )
    return this.registry.metrics()
  }

  /** Adds a counter that other parts of the app increment. */
  counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
    return new Counter({ name, help, labelNames: [...labelNames], registers: [this.registry] })
  }
}
