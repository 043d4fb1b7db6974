// Which partition folds each read model (PROJECTION_PARTITIONS in shared/src/subjects.ts).
// A model that reads another must be in that one's partition, after it in READ_MODELS:
// key-usage finds a job's key in the job models, so they are all "jobs". The per-page models
// (the heavy ones: each hydrates a result payload) are "pages"; keys and accounts, "accounts".
// A model not named here is a "jobs" model.
import type { ProjectionPartition } from '../../../shared/src/subjects.js';
import type { AnyReadModel } from './read-models/types.js';

const PARTITION_OF: Record<string, ProjectionPartition> = {
  'api-keys': 'accounts',
  accounts: 'accounts',
  invites: 'accounts',
  sessions: 'accounts',
  'scrape-cache': 'pages',
  'crawl-pages': 'pages',
  'batch-pages': 'pages',
};

export function partitionOf(model: AnyReadModel): ProjectionPartition {
  return PARTITION_OF[model.name] ?? 'jobs';
}

/** The models `partition` folds, in READ_MODELS order. */
export function modelsOf(partition: ProjectionPartition, models: readonly AnyReadModel[]): AnyReadModel[] {
  return models.filter((m) => partitionOf(m) === partition);
}
