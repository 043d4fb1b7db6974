// Probe: the whole tree's CPU while the system sits idle (what any measured run pays per second).
import { setTimeout as sleep } from 'node:timers/promises';
import { bootSystem } from '../lib/system.js';
import { cpuShares, TreeSampler } from '../lib/proc.js';

const bs = await bootSystem();
await sleep(8000);
const sampler = new TreeSampler(bs.rootPid).start();
await sleep(10_000);
const usage = sampler.stop();
console.log(`idle: ${Math.round(usage.cpuMs)} ms CPU in ${usage.wallMs} ms: ${cpuShares(usage.cpuByName)}`);
await bs.sys.stop();
