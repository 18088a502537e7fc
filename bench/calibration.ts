/**
 * The machine's speed, as the CPU time a fixed piece of work takes on it: the same arithmetic, JSON, hashing and
 * allocation on every run, each time in a fresh Node process (the same code compiled from nothing), so two runs' CPU
 * figures can be set side by side even when the machine under them was not equally fast. The bench's ratios do not
 * need it (a baseline in the same run has the same machine); the issue's absolute caps (CPU ms per transfer) do.
 */
import { spawnSync } from 'node:child_process';

/** The work, as a script for `node -e`: it prints its own CPU ms (user and system). */
const WORK = `
const { createHash } = require('node:crypto');
const started = process.cpuUsage();
let x = 0;
for (let i = 0; i < 20_000_000; i += 1) x = (x * 31 + i) % 1_000_003;
const hash = createHash('sha256');
const block = Buffer.alloc(1 << 20, 1);
for (let i = 0; i < 64; i += 1) hash.update(block);
hash.digest();
const kept = [];
for (let i = 0; i < 150_000; i += 1) kept.push(JSON.parse(JSON.stringify({ n: i, s: 'x' + i, list: [i, x] })));
const used = process.cpuUsage(started);
process.stdout.write(String((used.user + used.system) / 1000 + kept.length * 0));
`;

/** CPU ms of the fixed work: the median of `times` fresh processes, one after another. */
export function calibrationMs(times = 5): number {
  const figures: number[] = [];
  for (let i = 0; i < times; i += 1) {
    const run = spawnSync(process.execPath, ['-e', WORK], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`the calibration work failed: ${run.stderr}`);
    figures.push(Number(run.stdout));
  }
  figures.sort((a, b) => a - b);
  return Math.round(figures[Math.floor(figures.length / 2)]!);
}
