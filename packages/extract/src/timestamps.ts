// A post's time written as plain text, with no <time> and no class that names it (older
// phpBB: "by ann » Tue Aug 27, 2019 1:47 am"; vBulletin: "03-14-2021, 09:12 PM"): a short
// line that holds a year and a clock time. Used only to find a thread's posts on a page
// already typed a forum (forum.ts), never to delete anything.

/** A year (1990-2099) and a clock time (h:mm or hh:mm), in either order. */
const YEAR = /(?:^|\D)(?:199\d|20\d\d)(?:\D|$)/;
const CLOCK = /(?:^|\D)\d{1,2}:[0-5]\d(?:\D|$)/;

/** Whether `text` (a short line) reads as a timestamp: a year and a clock time in it. */
export function holdsTimestamp(text: string): boolean {
  return YEAR.test(text) && CLOCK.test(text);
}
