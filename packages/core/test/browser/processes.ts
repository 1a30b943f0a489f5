/**
 * Chromium processes seen through /proc, to prove a pool leaves none behind ("no zombie
 * processes after shutdown"). Linux only, as the CI machine is.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** One process as /proc shows it. */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** R, S, D, Z (zombie) … */
  state: string;
  command: string;
}

function readProcess(pid: number): ProcessInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const match = /^\d+ \((.*)\) (\S) (\d+)/s.exec(stat);
    if (!match) return undefined;
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
    return { pid, ppid: Number(match[3]), state: match[2]!, command };
  } catch {
    // It ended between listing and reading.
    return undefined;
  }
}

/** Every process of the machine. */
export function listProcesses(): ProcessInfo[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readProcess(Number(name)))
    .filter((info): info is ProcessInfo => info !== undefined);
}

/** The main Chromium process of a pool (its command line carries `--trawl-pool=<id>`). */
export function poolBrowserPid(poolId: string): number | undefined {
  return listProcesses().find(
    (info) => info.command.includes(`--trawl-pool=${poolId}`) && !info.command.includes('--type='),
  )?.pid;
}

/** A process and all its descendants, as pids. */
export function processTree(rootPid: number): number[] {
  const all = listProcesses();
  const tree = [rootPid];
  for (let index = 0; index < tree.length; index++) {
    for (const info of all) if (info.ppid === tree[index]) tree.push(info.pid);
  }
  return tree;
}

/** The pids of the list that still exist, zombies included (a zombie still has /proc/<pid>). */
export function stillThere(pids: readonly number[]): ProcessInfo[] {
  return pids.map(readProcess).filter((info): info is ProcessInfo => info !== undefined);
}
