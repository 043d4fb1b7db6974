// The crawl worker: the job runner (../job/runner.ts) with the crawl policy, which loads
// robots.txt for the origins of the links about to be judged before each decision (and puts
// each file's Crawl-delay into the fleet's pace of its host).
import type { RunningService, ServiceContext } from '../../../../shared/src/infra/service.js';
import { startJobWorker, type JobRunnerOptions, type JobSpec } from '../job/runner.js';
import { crawlDecider, robotsCandidates, type CrawlState, type DecideContext } from './decider.js';
import { crawlDelayPublisher } from './crawl-delay.js';
import { RobotsCache } from './robots.js';

export function crawlJob(allow: ServiceContext['config']['ssrfAllowCidrs'], robots = new RobotsCache({ allow })): JobSpec<CrawlState, DecideContext> {
  return {
    kind: 'crawl',
    decider: crawlDecider,
    failedBy: 'the crawl frontier',
    durable: 'crawler-frontier-crawl',
    async prepare(state, signal) {
      await robots.prepare(robotsCandidates(state), signal);
      return { robotsAllows: (url: string) => robots.allows(url) };
    },
  };
}

export function startCrawlWorker(ctx: ServiceContext, options: JobRunnerOptions = {}): Promise<RunningService> {
  const robots = new RobotsCache({ allow: ctx.config.ssrfAllowCidrs, onRead: crawlDelayPublisher(ctx.js) });
  return startJobWorker(ctx, crawlJob(ctx.config.ssrfAllowCidrs, robots), { maxInFlight: ctx.config.crawlMaxInFlight, ...options });
}
