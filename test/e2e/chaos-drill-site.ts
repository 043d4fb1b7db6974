// The chaos drill's ledger of what the site served: every request of a page with when it
// started and ended, and whether its response was written to the end ('served') or the
// client went away before that ('cut'), and every death the drill caused, with the local
// ports of the killed process's sockets at that moment (a fetcher's connections to the site).
// From these, each page asked more than once is put in a class:
//   'cut by a kill'       its earlier request was cut off mid-flight by a killed fetcher, or
//                         answered only after that fetcher's death (the kernel took the
//                         response, nobody read it): the site's work is an external side
//                         effect nobody can take back, and the dead fetcher never got the
//                         page, so it must be asked again;
//   'served, then killed' its earlier response reached a fetcher that was killed before it
//                         stored the page;
//   'served in a freeze'  its earlier response reached a fetcher just before or while a
//                         nats-server was frozen (SIGSTOP), and another fetcher asked again
//                         after the freeze began: the holder, cut off with its server, was
//                         judged gone (the drill prints it and allows none);
//   'repeat'              anything else: the system asked again a page it had been served.
import fs from 'node:fs';
import type http from 'node:http';

/**
 * How late after a death the site may read a request the dead process had sent, when its
 * connection was opened after the drill looked at the process's sockets (the site's event
 * loop lags seconds behind on a loaded machine).
 */
const OWNERLESS_READ_MS = 5_000;
/** How long before its fetcher's death the site may see a request end that the death cut off. */
const CUT_BEFORE_DEATH_MS = 2_000;

export interface Request { path: string; port: number; owner: string; startedAt: number; writtenAt?: number; endedAt?: number; outcome?: 'served' | 'cut' }
export interface Death { at: number; what: string; pid: number; ports: Set<number>; until?: number }
export type RepeatClass = 'cut by a kill' | 'served, then killed' | 'served in a freeze' | 'repeat';
export interface Repeat { path: string; klass: RepeatClass; requests: Request[] }

export class DrillLedger {
  readonly requests: Request[] = [];
  readonly deaths: Death[] = [];
  private readonly t0 = Date.now();
  private readonly owners = new Map<number, string>();
  /** The processes that may be the site's clients, looked up when a new connection asks. */
  clients: () => { pid: number; name: string }[] = () => [];

  /** A route that answers `body` after `delayMs()` and records how the request ended. */
  route(body: string, delayMs: () => number): (req: http.IncomingMessage, res: http.ServerResponse) => void {
    return (req, res) => {
      const port = req.socket.remotePort ?? 0;
      const entry: Request = { path: req.url ?? '/', port, owner: this.ownerOf(port), startedAt: Date.now() };
      this.requests.push(entry);
      res.on('finish', () => { entry.outcome ??= 'served'; entry.endedAt ??= Date.now(); });
      res.on('close', () => { entry.outcome ??= 'cut'; entry.endedAt ??= Date.now(); });
      setTimeout(() => {
        if (res.destroyed) return;
        entry.writtenAt = Date.now(); // the response's end is seen later ('finish'), seconds later on a loaded machine
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
      }, delayMs());
    };
  }

  private ownerOf(port: number): string {
    let owner = this.owners.get(port);
    if (owner === undefined) {
      const ports = tcpPorts();
      owner = this.clients().find((c) => socketPorts(c.pid, ports).has(port))?.name ?? '?';
      this.owners.set(port, owner);
    }
    return owner;
  }

  /** Notes a death (or freeze) the drill causes, just before it does it. */
  died(what: string, pid: number): void {
    this.deaths.push({ at: Date.now(), what, pid, ports: socketPorts(pid) });
  }

  /** Notes the end of a freeze noted with died() (SIGCONT). */
  thawed(pid: number): void {
    const freeze = this.deaths.findLast((d) => d.pid === pid);
    if (freeze) freeze.until = Date.now();
  }

  /** The pages under `prefix` that were requested more than once, each with its class. */
  repeats(prefix: string): Repeat[] {
    const byPath = new Map<string, Request[]>();
    for (const r of this.requests) if (r.path.startsWith(prefix)) byPath.set(r.path, [...(byPath.get(r.path) ?? []), r]);
    return [...byPath].filter(([, rs]) => rs.length > 1).map(([path, rs]) => ({ path, requests: rs, klass: this.classify(rs) }));
  }

  /** Pages whose response was written to the end more than once, each time before its fetcher died. */
  servedTwice(prefix: string): string[] {
    const served = new Map<string, number>();
    for (const r of this.requests) if (r.path.startsWith(prefix) && r.outcome === 'served' && !this.lostWithKill(r)) served.set(r.path, (served.get(r.path) ?? 0) + 1);
    return [...served].filter(([, n]) => n > 1).map(([p]) => p);
  }

  /**
   * Each earlier request is accounted for by the SIGKILL of the fetcher that made it: the
   * request was in flight at the death, or it was served to that fetcher before its death
   * and asked again only after it (the process died with the page not yet stored: it may
   * have been waiting out an election to store it). A request the site reads after its
   * sender died (its bytes were in the socket at the death) came on one of the sockets the
   * dead process had, or, opened since the drill looked, has no owner left ('?').
   */
  private classify(rs: Request[]): RepeatClass {
    const earlier = rs.slice(0, -1);
    const next = (r: Request): Request => rs[rs.indexOf(r) + 1]!;
    const fetcherDeaths = this.deaths.filter((d) => d.what.includes('fetcher'));
    const cutBy = (r: Request): Death | undefined => this.lostWithKill(r);
    // Served to a process that died later, and asked again only after that death.
    // Its process by the socket (at the death) or by the owner looked up when the connection
    // was first seen (a kept-alive socket may have closed between the response and the death).
    const servedToDead = (r: Request): Death | undefined => fetcherDeaths.find((d) => (d.ports.has(r.port) || r.owner.startsWith(`${d.pid}:`)) && r.startedAt <= d.at && next(r).startedAt >= d.at);
    if (earlier.every((r) => cutBy(r))) return 'cut by a kill';
    if (earlier.every((r) => cutBy(r) || servedToDead(r))) return 'served, then killed';
    // Served within a freeze (from a page's time before it to its end), asked again after it began.
    const freezes = this.deaths.filter((d) => d.what.startsWith('SIGSTOP'));
    const servedInFreeze = (r: Request): Death | undefined => freezes.find((d) => r.outcome === 'served'
      && (r.endedAt ?? 0) >= d.at - CUT_BEFORE_DEATH_MS && (r.endedAt ?? 0) <= (d.until ?? Infinity) && next(r).startedAt >= d.at);
    if (earlier.every((r) => cutBy(r) || servedToDead(r) || servedInFreeze(r))) return 'served in a freeze';
    return 'repeat';
  }

  /**
   * The fetcher death that took this request with it: cut off mid-flight, or answered only
   * after the death (the kernel took the response; nobody read it).
   */
  private lostWithKill(r: Request): Death | undefined {
    return this.deaths.find((d) => d.what.includes('fetcher') && (d.ports.has(r.port) || (r.owner === '?' && r.startedAt <= d.at + OWNERLESS_READ_MS))
      && (r.outcome === 'cut' ? (r.endedAt ?? Infinity) >= d.at - CUT_BEFORE_DEATH_MS : (r.writtenAt ?? Number.NEGATIVE_INFINITY) >= d.at));
  }

  /** One line per request of each repeated page, times in ms since the drill began. */
  describe(repeats: Repeat[]): string {
    // A request served to a process killed later: how long after the response's end (the window
    // in which a page read in full is lost with its process).
    const killed = (r: Request): string => {
      const death = this.deaths.find((d) => d.ports.has(r.port) || (d.what.includes('fetcher') && r.owner.startsWith(`${d.pid}:`)));
      if (!death) return '';
      return r.outcome === 'served' && r.endedAt !== undefined ? `(killed ${death.at - r.endedAt} ms after the response ended)` : '(killed)';
    };
    const lines = repeats.map((rep) => `${rep.path} [${rep.klass}] ${rep.requests.map((r) => `${r.startedAt - this.t0}-${r.endedAt === undefined ? '?' : r.endedAt - this.t0} ${r.outcome ?? 'open'} :${r.port}${killed(r)} ${r.owner}`).join(' | ')}`);
    const deaths = this.deaths.map((d) => `${d.at - this.t0} ${d.what} (pid ${d.pid}, ${d.ports.size} sockets)`);
    return [...lines, `deaths: ${deaths.join('; ')}`].join('\n');
  }
}

/** The local ports of `pid`'s TCP sockets (its connections' client ends). */
function socketPorts(pid: number, ports: Map<string, number> = tcpPorts()): Set<number> {
  const found = new Set<number>();
  let fds: string[] = [];
  try { fds = fs.readdirSync(`/proc/${pid}/fd`); } catch { return found; }
  for (const fd of fds) {
    const m = /^socket:\[(\d+)\]$/.exec(safeReadlink(`/proc/${pid}/fd/${fd}`));
    const port = m ? ports.get(m[1]!) : undefined;
    if (port !== undefined) found.add(port);
  }
  return found;
}

/** Each TCP socket's inode with its local port. */
function tcpPorts(): Map<string, number> {
  const ports = new Map<string, number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try { text = fs.readFileSync(table, 'utf8'); } catch { continue; }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length > 9) ports.set(cols[9]!, parseInt(cols[1]!.split(':')[1]!, 16));
    }
  }
  return ports;
}

function safeReadlink(p: string): string {
  try { return fs.readlinkSync(p); } catch { return ''; }
}
