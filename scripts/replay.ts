// Audit replay for operators: prints one job's events from the log, in order, as JSON
// lines. `npm run replay -- <scrape|crawl|batch|map|apikey> <id>` (NATS_URL, or the local
// nats-server that `npm start` runs on 127.0.0.1:4222).
import { connect } from 'nats';
import { AGGREGATE_KINDS, historyFilter, type AggregateKind } from '../shared/src/infra/subjects.js';
import { EventLog } from '../shared/src/infra/nats/event-log.js';

const [kind, id] = process.argv.slice(2);
if (!kind || !id || !(AGGREGATE_KINDS as readonly string[]).includes(kind)) {
  process.stderr.write(`usage: npm run replay -- <${AGGREGATE_KINDS.join('|')}> <id>\n`);
  process.exit(2);
}
const nc = await connect({ servers: (process.env.NATS_URL ?? 'nats://127.0.0.1:4222').split(',') });
try {
  const log = new EventLog(nc.jetstream(), await nc.jetstreamManager());
  const events = await log.read(historyFilter(kind as AggregateKind, id));
  if (events.length === 0) process.stderr.write(`no events for ${kind} ${id}\n`);
  for (const e of events) process.stdout.write(`${JSON.stringify({ seq: e.seq, at: e.occurredAt, part: e.part, event: e.event, data: e.data })}\n`);
} finally {
  await nc.close();
}
