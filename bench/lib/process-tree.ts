/**
 * Runs a command as a user would and measures it whole: CPU time of the process and every
 * process it waited for (GNU time's rusage), and peak RSS of the whole process tree, summed over
 * the processes alive at each 100 ms sample of /proc. `process.resourceUsage()` sees only the
 * calling process, and GNU time's maximum RSS is that of the largest single process, not of the
 * tree: a crawler that starts helpers (worker processes, a browser) must be measured as the sum.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';

/** What a measured run took. */
export interface TreeUsage {
  exitCode: number | null;
  wallMs: number;
  cpuMs: number;
  peakRssMb: number;
}

function parentAndRss(pid: number): { parent: number; rssKb: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses; the fields start after the last ')'.
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const rss = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return { parent, rssKb: rss ? Number(rss[1]) : 0 };
  } catch {
    return undefined; // the process ended between listing and reading
  }
}

/** Summed RSS in kB of `root` and every live process below it. */
export function treeRssKb(root: number): number {
  const all = new Map<number, { parent: number; rssKb: number }>();
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const entry = parentAndRss(pid);
    if (entry) all.set(pid, entry);
  }
  let sum = 0;
  for (const [pid, entry] of all) {
    for (let at = pid; at > 1; at = all.get(at)?.parent ?? 0) {
      if (at === root) {
        sum += entry.rssKb;
        break;
      }
    }
  }
  return sum;
}

/**
 * Runs `command` under /usr/bin/time, hands its stdout to `consume` (which must read at full
 * speed, as a pipe to another program would), and resolves with the usage once it exits.
 */
export async function measureCommand(
  command: string[],
  consume: (stdout: Readable) => Promise<void>,
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<TreeUsage> {
  const started = performance.now();
  // %U %S: user and system seconds of the command and the children it waited for; %M: the
  // largest single process's peak RSS in kB, a floor for the tree's figure.
  const child = spawn('/usr/bin/time', ['-f', 'TREE-USAGE %U %S %M', ...command], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: options.env ?? process.env,
    cwd: options.cwd,
  });
  let peakKb = 0;
  const timer = setInterval(() => {
    if (child.pid) peakKb = Math.max(peakKb, treeRssKb(child.pid));
  }, 100);
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-64 * 1024);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  await consume(child.stdout);
  const exitCode = await exited;
  clearInterval(timer);
  const wallMs = Math.round(performance.now() - started);
  const usage = /TREE-USAGE ([\d.]+) ([\d.]+) (\d+)/.exec(stderr);
  if (!usage) throw new Error(`no usage from /usr/bin/time; stderr ends:\n${stderr.slice(-2000)}`);
  return {
    exitCode,
    wallMs,
    cpuMs: Math.round((Number(usage[1]) + Number(usage[2])) * 1000),
    peakRssMb: Math.round(Math.max(peakKb, Number(usage[3])) / 1024),
  };
}
