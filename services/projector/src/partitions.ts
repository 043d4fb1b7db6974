// Which partition folds each read model (PROJECTION_PARTITIONS in shared/src/infra/subjects.ts).
// Models that are read together must move together, so they are in one partition, in
// READ_MODELS order: key-usage finds a job's key in the job models; a crawl's or batch's
// counts and its pages' contents are answered together (a page counts as completed only
// once its content is stored); a cache entry points at a scrape job that must show it
// completed. So every job model is "jobs"; keys, accounts, invites and sessions (read
// together by sign-in and key checks) are "accounts"; the usage chart's daily counts,
// read alone, are "charts". A model not named here is a "jobs" model.
import type { ProjectionPartition } from '../../../shared/src/infra/subjects.js';
import type { AnyReadModel } from './read-models/types.js';

const PARTITION_OF: Record<string, ProjectionPartition> = {
  'api-keys': 'accounts',
  accounts: 'accounts',
  invites: 'accounts',
  sessions: 'accounts',
  'key-daily-pages': 'charts',
};

export function partitionOf(model: AnyReadModel): ProjectionPartition {
  return PARTITION_OF[model.name] ?? 'jobs';
}

/** The models `partition` folds, in READ_MODELS order. */
export function modelsOf(partition: ProjectionPartition, models: readonly AnyReadModel[]): AnyReadModel[] {
  return models.filter((m) => partitionOf(m) === partition);
}
