// One logger factory so every service logs the same JSON shape: service name, and the
// requestId / jobId bindings added by child loggers at the edges.
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    name: service,
    level,
    base: { service, pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    // API keys must never reach a log line, even by accident.
    redact: { paths: ['req.headers.authorization', 'headers.authorization', 'apiKey', '*.apiKey'], censor: '[redacted]' },
  });
}
