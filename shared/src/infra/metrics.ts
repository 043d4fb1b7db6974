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

/** A metric made at first use (see `once`); histograms of seconds share one set of buckets. */
const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) => (): client.Counter<L> =>
  once(name, () => new client.Counter({ name, help, labelNames }));
const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[]) => (): client.Gauge<L> =>
  once(name, () => new client.Gauge({ name, help, labelNames }));
const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[]) => (): client.Histogram<L> =>
  once(name, () => new client.Histogram({ name, help, labelNames, buckets: SECONDS_BUCKETS }));

export const consumerMetrics = {
  handled: counter('trawl_messages_handled_total', 'Messages a consumer finished with, by outcome (ack, retry, gave_up, poison, handed_back; ignored: acked undecoded, nothing for the handler; duplicate: a copy of a message this worker settled, acked unrun)', ['consumer', 'outcome']),
  duration: histogram('trawl_message_handle_seconds', 'Time a consumer spent on one delivery of a message', ['consumer']),
  inFlight: gauge('trawl_messages_in_flight', 'Messages a consumer is handling now', ['consumer']),
  redelivered: counter('trawl_messages_redelivered_total', 'Deliveries after the first (retries, crashes, shutdown hand-backs)', ['consumer']),
  outageRetries: counter('trawl_message_outage_retries_total', 'Handler runs repeated in place because NATS was unavailable (an election, a server cut off)', ['consumer']),
};

export const httpMetrics = {
  requests: counter('trawl_http_requests_total', 'HTTP requests answered, by method, route pattern and status code', ['method', 'route', 'status_code']),
  duration: histogram('trawl_http_request_duration_seconds', 'Time from receiving a request to answering it, by method and route pattern', ['method', 'route']),
  problems: counter('trawl_http_problems_total', 'Error responses (RFC 7807), by code', ['code']),
};

export const webhookMetrics = {
  attempts: counter('trawl_webhook_attempts_total', 'Webhook delivery attempts, by outcome (delivered, retry, abandoned)', ['outcome']),
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
