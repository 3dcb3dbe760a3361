// The load generators of the HTTP benches, run in the bench process: autocannon for saturated
// runs (a fixed number of keep-alive connections, each sending its next request when the last
// reply arrives), and an open-loop client paced at a fixed rate. Both post prebuilt bodies taken
// in turn from one shared cursor, and account the CPU of the server process and of this one.

import { Agent, request as httpRequest } from 'node:http';
import { loadavg } from 'node:os';

import autocannon from 'autocannon';

import { type SecondOfRun, Timeline } from './timeline.js';

import {
  KEY,
  ownCpuMs,
  processCpuMs,
  type ThreadsCpu,
  threadsCpuBetween,
  threadTimes,
} from './service-process.js';

/** The headers of every bench request to the facilitator (the pool node ignores the key). */
export const JSON_HEADERS = {
  'content-type': 'application/json',
  authorization: `Bearer ${KEY}`,
};

/** One load run. */
export interface RunResult {
  /** 1-minute load average of the machine at the end of the run (other processes included). */
  readonly load: number;
  readonly durationS: number;
  readonly requests: number;
  readonly reqPerSec: number;
  readonly latencyMs: { p50: number; p90: number; p99: number; max: number };
  readonly statusCodes: Record<string, number>;
  readonly errors: number;
  /** CPU time of the server process per request, ms (verification included). */
  readonly serverCpuMsPerRequest: number;
  /** The same by thread role (main event loop, verification threads, the others). */
  readonly serverThreadsCpuMsPerRequest?: ThreadsCpu;
  /** CPU time of this process (the load generator) per request, ms. */
  readonly generatorCpuMsPerRequest: number;
  /** Seconds from the start of the run to its last 200 reply (saturated runs). */
  readonly lastOkS?: number;
  /** Replies and latency in each second of the run (the chart's throughput over the run). */
  readonly perSecond: readonly SecondOfRun[];
}

/** The `p`-th percentile of ascending `sorted` (nearest rank), NaN when empty. */
export const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;

/** The machine's 1-minute load average, two decimals. */
export const loadAverage = () => Number(loadavg()[0]!.toFixed(2));

const perRequest = (ms: number, requests: number) =>
  Number((ms / Math.max(1, requests)).toFixed(2));

/** The server's CPU by thread role per request between `before` and now, when a pid is known. */
function threadsPerRequest(
  pid: number | undefined,
  before: ReturnType<typeof threadTimes>,
  requests: number,
): { serverThreadsCpuMsPerRequest?: ThreadsCpu } {
  if (!pid) return {};
  const t = threadsCpuBetween(pid, before, threadTimes(pid));
  return {
    serverThreadsCpuMsPerRequest: {
      main: perRequest(t.main, requests),
      primary: perRequest(t.primary, requests),
      niced: perRequest(t.niced, requests),
      other: perRequest(t.other, requests),
      busiestOther: perRequest(t.busiestOther, requests),
    },
  };
}

/**
 * One autocannon run posting `bodies` to `url + path` for `seconds`, `connections` at a time:
 * every request takes the next body in turn from one shared cursor, so no two connections send the
 * same payment at once while there are more payments than connections. Each request is built when
 * it is sent (an 80 KB copy for an inline payment): autocannon builds prebuilt request lists when
 * the run starts, inside the timed window, and for 8000 bodies that held back the first replies by
 * about 3 s.
 * @param options.pid the server process whose CPU time is accounted
 * @param options.okStatuses the statuses that count as success for `lastOkS` (default 200)
 */
export async function saturated(
  url: string,
  path: string,
  bodies: readonly Buffer[],
  options: {
    seconds: number;
    connections: number;
    pid?: number | undefined;
    okStatuses?: readonly number[];
  },
): Promise<RunResult> {
  const cpuBefore = options.pid ? processCpuMs(options.pid) : Number.NaN;
  const threadsBefore = options.pid ? threadTimes(options.pid) : new Map();
  const ownBefore = ownCpuMs();
  const ok = options.okStatuses ?? [200];
  let next = 0;
  const started = performance.now();
  const timeline = new Timeline(started);
  let lastOk = started;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${url}${path}`,
        duration: options.seconds,
        connections: options.connections,
        requests: [
          {
            method: 'POST',
            headers: JSON_HEADERS,
            setupRequest: (request) => ({ ...request, body: bodies[next++ % bodies.length]! }),
          },
        ],
      },
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      timeline.record(statusCode, responseTime);
      if (ok.includes(statusCode)) lastOk = performance.now();
    });
  });
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {}))
    statusCodes[code] = Number((stat as { count: number }).count);
  return {
    load: loadAverage(),
    durationS: result.duration,
    requests: result.requests.total,
    reqPerSec: result.requests.total / result.duration,
    latencyMs: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
    },
    statusCodes,
    errors: result.errors + result.timeouts,
    serverCpuMsPerRequest: perRequest(
      processCpuMs(options.pid ?? 0) - cpuBefore,
      result.requests.total,
    ),
    generatorCpuMsPerRequest: perRequest(ownCpuMs() - ownBefore, result.requests.total),
    ...threadsPerRequest(options.pid, threadsBefore, result.requests.total),
    lastOkS: (lastOk - started) / 1000,
    perSecond: timeline.perSecond(),
  };
}

/**
 * Open-loop load at a fixed rate: request i is sent at start + i / rate whatever happened to the
 * ones before it, over keep-alive connections (at most `connections`; a request waits for a free
 * one when all are busy), and its latency runs from the moment it was due, so time spent queued
 * behind slow replies counts (no coordinated omission). autocannon's `overallRate` cannot measure
 * this: it gives each connection a quota per second, which every connection spends at the start of
 * the second (a burst of up to `connections` requests each second, then silence), and it corrects
 * for coordinated omission with an expected interval of ⌈1 / per-connection rate⌉ = 1 ms, adding a
 * synthetic sample for every millisecond of every slow reply.
 */
export async function paced(
  url: string,
  path: string,
  bodies: readonly Buffer[],
  options: { rate: number; seconds: number; connections: number; pid?: number; from?: number },
): Promise<RunResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  const total = Math.round(options.rate * options.seconds);
  const latencies: number[] = [];
  const statusCodes: Record<string, number> = {};
  let errors = 0;
  const cpuBefore = options.pid ? processCpuMs(options.pid) : Number.NaN;
  const threadsBefore = options.pid ? threadTimes(options.pid) : new Map();
  const ownBefore = ownCpuMs();
  const start = performance.now() + 5;
  const timeline = new Timeline(start);
  const dueAt = (i: number) => start + (i * 1000) / options.rate;
  let lastEnd = start;
  await new Promise<void>((resolve) => {
    let finished = 0;
    const finish = () => {
      lastEnd = performance.now();
      if (++finished === total) resolve();
    };
    const fire = (i: number) => {
      const body = bodies[((options.from ?? 0) + i) % bodies.length]!;
      const req = httpRequest(
        `${url}${path}`,
        { method: 'POST', agent, headers: { ...JSON_HEADERS, 'content-length': body.length } },
        (res) => {
          res.resume();
          res.once('end', () => {
            const code = String(res.statusCode);
            statusCodes[code] = (statusCodes[code] ?? 0) + 1;
            if (res.statusCode === 200) latencies.push(performance.now() - dueAt(i));
            timeline.record(res.statusCode ?? 0, performance.now() - dueAt(i));
            finish();
          });
        },
      );
      req.setTimeout(30_000, () => req.destroy(new Error('timeout')));
      req.once('error', () => {
        errors++;
        finish();
      });
      req.end(body);
    };
    let sent = 0;
    const tick = () => {
      const now = performance.now();
      while (sent < total && dueAt(sent) <= now) fire(sent++);
      if (sent < total) setTimeout(tick, Math.max(0, dueAt(sent) - performance.now()));
    };
    setTimeout(tick, 5);
  });
  agent.destroy();
  latencies.sort((a, b) => a - b);
  // Microseconds: a 5 % comparison of a 1–2 ms latency needs finer steps than 0.1 ms.
  const round = (ms: number) => Number(ms.toFixed(3));
  const durationS = (lastEnd - start) / 1000;
  const requests = Object.values(statusCodes).reduce((a, b) => a + b, 0);
  return {
    load: loadAverage(),
    durationS,
    requests,
    reqPerSec: requests / durationS,
    latencyMs: {
      p50: round(percentile(latencies, 50)),
      p90: round(percentile(latencies, 90)),
      p99: round(percentile(latencies, 99)),
      max: round(latencies.at(-1) ?? Number.NaN),
    },
    statusCodes,
    errors,
    serverCpuMsPerRequest: perRequest(processCpuMs(options.pid ?? 0) - cpuBefore, requests),
    generatorCpuMsPerRequest: perRequest(ownCpuMs() - ownBefore, requests),
    ...threadsPerRequest(options.pid, threadsBefore, requests),
    perSecond: timeline.perSecond(),
  };
}
