// The command-line flags of the extraction benches and probes: `--name value` pairs.

/** The value after `--name` on this process's command line, if it is there. */
export function flag(name: string): string | undefined {
  const args = process.argv.slice(2);
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

/** Whether `--name` is on this process's command line (a flag without a value). */
export function hasFlag(name: string): boolean {
  return process.argv.slice(2).includes(`--${name}`);
}

/**
 * `--every N --fold K`: a WCXB page is in the fold when its numeric id is K modulo N, so two
 * folds of one `every` never share a page (tune on one, check on the other).
 */
export function wcxbFold(): { every: number; fold: number; inFold: (id: string) => boolean } {
  const every = Number(flag('every') ?? 1);
  const fold = Number(flag('fold') ?? 0);
  return { every, fold, inFold: (id) => Number.parseInt(id, 10) % every === fold % every };
}
