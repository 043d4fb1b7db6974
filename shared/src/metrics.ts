// Prometheus metrics (prom-client): one registry per process, labelled with the service's
// name (in the service host, the hosted services' names joined by "+"), served at /metrics
// on the internal HEALTH_PORT, never the public API port; what is measured: docs/architecture.md
// "Metrics". Created at first use, so tests running several services in one process share them.
import client from 'prom-client';

export const registry = client.register;

let defaultsCollected = false;

/** Names the service on every metric and turns on the process metrics (once per process). */
export function initMetrics(service: string): void {
  registry.setDefaultLabels({ service });
  if (!defaultsCollected) {
    client.collectDefaultMetrics({ register: registry, prefix: 'trawl_' });
    defaultsCollected = true;
  }
}

/** The exposition text and its content type. */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}

function once<T extends client.Metric>(name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

export const consumerMetrics = {
  handled: () => once('trawl_messages_handled_total', () => new client.Counter({
    name: 'trawl_messages_handled_total',
    help: 'Messages a consumer finished with, by outcome (ack, retry, gave_up, poison, handed_back)',
    labelNames: ['consumer', 'outcome'] as const,
  })),
  duration: () => once('trawl_message_handle_seconds', () => new client.Histogram({
    name: 'trawl_message_handle_seconds',
    help: 'Time a consumer spent on one delivery of a message',
    labelNames: ['consumer'] as const,
    buckets: SECONDS_BUCKETS,
  })),
  inFlight: () => once('trawl_messages_in_flight', () => new client.Gauge({
    name: 'trawl_messages_in_flight',
    help: 'Messages a consumer is handling now',
    labelNames: ['consumer'] as const,
  })),
  redelivered: () => once('trawl_messages_redelivered_total', () => new client.Counter({
    name: 'trawl_messages_redelivered_total',
    help: 'Deliveries after the first (retries, crashes, shutdown hand-backs)',
    labelNames: ['consumer'] as const,
  })),
};

export const httpMetrics = {
  requests: () => once('trawl_http_requests_total', () => new client.Counter({
    name: 'trawl_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
  })),
  duration: () => once('trawl_http_request_duration_seconds', () => new client.Histogram({
    name: 'trawl_http_request_duration_seconds',
    help: 'Time from receiving a request to answering it, by method and route pattern',
    labelNames: ['method', 'route'] as const,
    buckets: SECONDS_BUCKETS,
  })),
  problems: () => once('trawl_http_problems_total', () => new client.Counter({
    name: 'trawl_http_problems_total',
    help: 'Error responses (RFC 7807), by code',
    labelNames: ['code'] as const,
  })),
};

export const webhookMetrics = {
  attempts: () => once('trawl_webhook_attempts_total', () => new client.Counter({
    name: 'trawl_webhook_attempts_total',
    help: 'Webhook delivery attempts, by outcome (delivered, retry, abandoned)',
    labelNames: ['outcome'] as const,
  })),
};

const readers = new Map<string, () => number | Promise<number>>();

/**
 * A gauge whose value is read when Prometheus scrapes (pool sizes, lag). The latest `read`
 * given for a name is the one used (a restarted component in the same process replaces it).
 */
export function observedGauge(name: string, help: string, read: () => number | Promise<number>): client.Gauge {
  readers.set(name, read);
  return once(name, () => new client.Gauge({
    name,
    help,
    async collect() {
      try {
        const value = await readers.get(name)?.();
        if (value !== undefined && Number.isFinite(value)) this.set(value);
      } catch {
        // Unknown right now (NATS down): keep the last value rather than fail the scrape.
      }
    },
  }));
}
