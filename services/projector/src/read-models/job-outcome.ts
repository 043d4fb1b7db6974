// What the final event of a multi-page job (crawl_finished, batch_finished) sets on its
// read model: the final status and counters, when it ended, and why it failed. A job
// cancelled earlier keeps the time of its cancel as its completedAt.
interface FinishedData<S extends string> {
  status: S;
  totalUrls: number;
  completedUrls: number;
  failedUrls: number;
  reason?: string;
  finishedAt: string;
}

export function finishedFields<S extends string>(doc: { status: string; completedAt?: string }, d: FinishedData<S>) {
  return {
    status: d.status,
    totalUrls: d.totalUrls,
    completedUrls: d.completedUrls,
    failedUrls: d.failedUrls,
    completedAt: doc.status === 'CANCELLED' && doc.completedAt ? doc.completedAt : d.finishedAt,
    ...(d.status === 'FAILED' && d.reason ? { error: { message: d.reason } } : {}),
  };
}
