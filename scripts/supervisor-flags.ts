// Imported first by scripts/start.ts: when the supervisor was started without its V8 flags
// (`npm start` runs plain `node dist/scripts/start.js`), it replaces itself, same pid, with
// `node <SUPERVISOR_NODE_FLAGS> dist/scripts/start.js`, before any other module runs.
// process.execve (Node >= 23.11) keeps the pid, so a process manager, a terminal's Ctrl-C
// and the tests' process-tree readers see one process. TRAWL_SUPERVISOR_FLAGS=off skips it.
import { SUPERVISOR_NODE_FLAGS } from './services.js';

const REEXEC_MARK = 'TRAWL_SUPERVISOR_REEXECUTED';

if (process.env.TRAWL_SUPERVISOR_FLAGS !== 'off' && !process.env[REEXEC_MARK] && typeof process.execve === 'function'
  && SUPERVISOR_NODE_FLAGS.some((flag) => !process.execArgv.includes(flag))) {
  process.execve(process.execPath, [process.execPath, ...SUPERVISOR_NODE_FLAGS, ...process.execArgv, ...process.argv.slice(1)], { ...process.env, [REEXEC_MARK]: '1' });
}
