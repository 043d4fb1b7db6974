// A monitor's schedule: a fixed interval (counted from the monitor's creation) or a cron
// expression (croner: 5 or 6 fields, an optional IANA time zone, UTC by default). Pure: the
// scheduled times are functions of the schedule and a time, never of the clock.
import { Cron } from 'croner';
import { ValidationError } from '../errors.js';
import type { MonitorSchedule } from '../events/monitor.js';

/** Scheduled times looked at when catching up at most (a schedule far behind jumps to the newest due time). */
const MAX_CATCH_UP_STEPS = 100_000;

function cronOf(schedule: { cron: string; timezone?: string | undefined }): Cron {
  return new Cron(schedule.cron, { paused: true, timezone: schedule.timezone ?? 'UTC' });
}

/**
 * Checks a schedule and the shortest gap between its runs (`minIntervalMs`), naming the
 * field at fault. A cron whose runs come closer than that is refused like a short interval.
 */
export function checkSchedule(schedule: MonitorSchedule, minIntervalMs: number, now: Date): void {
  if ('intervalSeconds' in schedule) {
    if (schedule.intervalSeconds * 1000 < minIntervalMs) {
      throw new ValidationError(`schedule.intervalSeconds must be at least ${Math.ceil(minIntervalMs / 1000)}`, 'schedule.intervalSeconds');
    }
    return;
  }
  if (schedule.timezone !== undefined) {
    try {
      new Intl.DateTimeFormat('en', { timeZone: schedule.timezone });
    } catch {
      throw new ValidationError(`schedule.timezone: "${schedule.timezone}" is not an IANA time zone`, 'schedule.timezone');
    }
  }
  let a: Date | undefined;
  let b: Date | undefined;
  try {
    [a, b] = cronOf(schedule).nextRuns(2, now);
  } catch (err) {
    throw new ValidationError(`schedule.cron: ${(err as Error).message}`, 'schedule.cron');
  }
  if (!a || !b) throw new ValidationError('schedule.cron never runs again', 'schedule.cron');
  if (b.getTime() - a.getTime() < minIntervalMs) {
    throw new ValidationError(`schedule.cron runs more often than every ${Math.ceil(minIntervalMs / 1000)} s`, 'schedule.cron');
  }
}

/** The first scheduled time strictly after `after`; null when the schedule never runs again. */
export function nextTickAfter(schedule: MonitorSchedule, createdAt: Date, after: Date): Date | null {
  if ('intervalSeconds' in schedule) {
    const step = schedule.intervalSeconds * 1000;
    const k = Math.floor((after.getTime() - createdAt.getTime()) / step) + 1;
    return new Date(createdAt.getTime() + Math.max(1, k) * step);
  }
  return cronOf(schedule).nextRun(after);
}

/**
 * The newest scheduled time after `after` that is not later than `now`, or null when none
 * is due. Ticks missed (a restart, a run longer than the interval) are not made up one by
 * one: the monitor runs once, for the newest of them.
 */
export function dueTick(schedule: MonitorSchedule, createdAt: Date, after: Date, now: Date): Date | null {
  let due: Date | null = null;
  let next = nextTickAfter(schedule, createdAt, after);
  for (let i = 0; next && next.getTime() <= now.getTime() && i < MAX_CATCH_UP_STEPS; i++) {
    due = next;
    if ('intervalSeconds' in schedule) {
      // The newest due interval tick directly.
      const step = schedule.intervalSeconds * 1000;
      due = new Date(createdAt.getTime() + Math.floor((now.getTime() - createdAt.getTime()) / step) * step);
      break;
    }
    next = nextTickAfter(schedule, createdAt, next);
  }
  return due;
}
