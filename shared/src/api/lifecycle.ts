// A job's lifecycle as the API shows it: one list of statuses, the final ones, and the
// longest a GET may wait for a job to finish. Plain values with no imports, so the SDK can
// load them at run time without the schemas. Every layer (the gateway's schemas and
// long-polls, the console, the SDK, the MCP server) reads these.

/** Every status of a scrape, crawl or batch job (and of a batch page), in lifecycle order. */
export const JOB_STATUSES = ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** Statuses after which a job changes no more (a scrape never reaches CANCELLED). */
export const FINAL_JOB_STATUSES = ['COMPLETED', 'FAILED', 'CANCELLED'] as const;
export type FinalJobStatus = (typeof FINAL_JOB_STATUSES)[number];

const FINAL: ReadonlySet<string> = new Set(FINAL_JOB_STATUSES);
/** True once a job (or a batch page) changes no more. */
export const isFinalStatus = (status: string | undefined): status is FinalJobStatus => FINAL.has(status ?? '');

/** The longest wait a request may ask for (`waitMs` 0 to this; docs/api.md "Waiting"). */
export const MAX_WAIT_MS = 60_000;
