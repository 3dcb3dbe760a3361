// The bound of one lever (issue 27, item 2, "zero-copy hand-off to the verification and writer
// threads"): what copying a proof-sized buffer to another thread costs, against moving it. Each
// message goes to a worker thread that answers at once; both ways send the same bytes, one by
// structured clone (what the verification threads and the SQLite writer receive today), one by
// transfer (zero copy; the sender's buffer is detached, so each message gets a fresh one in both
// ways). Reported: the main thread's CPU per message (process.threadCpuUsage) and the round trip.

import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';

const ECHO = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', (m) => parentPort.postMessage(m.bytes.length));
`;

/** Per message: the main thread's CPU and the round trip, µs (medians of `rounds`). */
export interface CopyBound {
  readonly bytes: number;
  readonly messages: number;
  readonly copy: Side;
  readonly transfer: Side;
}

/** One way's figures per message, µs: the main thread's CPU, every thread's, the round trip. */
export interface Side {
  readonly cpuUs: number;
  readonly processCpuUs: number;
  readonly roundTripUs: number;
}

const threadCpuUs = () => {
  const usage = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage?.();
  const cpu = usage ?? process.cpuUsage();
  return cpu.user + cpu.system;
};
const processCpuUs = () => {
  const cpu = process.cpuUsage();
  return cpu.user + cpu.system;
};

/** Measures `messages` messages of `bytes` each way, alternating the ways over `rounds`. */
export async function copyBound(bytes: number, messages = 5000, rounds = 5): Promise<CopyBound> {
  const worker = new Worker(ECHO, { eval: true });
  const send = (move: boolean) =>
    new Promise<void>((resolve) => {
      const buffer = new Uint8Array(bytes);
      buffer[0] = 1;
      worker.once('message', () => resolve());
      worker.postMessage({ bytes: buffer }, move ? [buffer.buffer] : []);
    });
  const run = async (move: boolean): Promise<Side> => {
    const cpu = threadCpuUs();
    const all = processCpuUs();
    const start = performance.now();
    for (let i = 0; i < messages; i++) await send(move);
    return {
      cpuUs: (threadCpuUs() - cpu) / messages,
      processCpuUs: (processCpuUs() - all) / messages,
      roundTripUs: ((performance.now() - start) * 1000) / messages,
    };
  };
  await run(false);
  await run(true);
  const copies: Side[] = [];
  const moves: Side[] = [];
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) {
      copies.push(await run(false));
      moves.push(await run(true));
    } else {
      moves.push(await run(true));
      copies.push(await run(false));
    }
  }
  await worker.terminate();
  const med = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return Number(s[s.length >> 1]!.toFixed(1));
  };
  return {
    bytes,
    messages,
    copy: sideOf(copies, med),
    transfer: sideOf(moves, med),
  };
}

function sideOf(runs: readonly Side[], med: (xs: number[]) => number): Side {
  return {
    cpuUs: med(runs.map((r) => r.cpuUs)),
    processCpuUs: med(runs.map((r) => r.processCpuUs)),
    roundTripUs: med(runs.map((r) => r.roundTripUs)),
  };
}
