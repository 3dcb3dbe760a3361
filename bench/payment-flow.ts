// The whole-payment load generator of the flow bench, run in the bench process: a fixed number of
// payments in flight, each a chain of HTTP calls (the wallet's hand-over to the pool node, then the
// calls the merchant's resource server makes to the facilitator), a payment starting as soon as
// one ends (closed loop), each payment of the set used once. A payment counts when every call of
// its chain answered as expected; its latency runs from its first call's start to its last reply.

import { Agent, request as httpRequest } from 'node:http';

import { loadAverage, percentile } from './load-generators.js';
import {
  ownCpuMs,
  processCpuMs,
  type ThreadsCpu,
  threadsCpuBetween,
  threadTimes,
} from './service-process.js';

/** One HTTP call of a payment. */
export interface FlowStep {
  /** What the call is, e.g. `POST /proofs`. */
  readonly name: string;
  /** The full URL. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The body of payment `i`. */
  readonly body: (i: number) => Buffer;
  /** Whether the reply of payment `i` is the expected one (otherwise the payment failed). */
  readonly ok: (status: number, reply: string, i: number) => boolean;
  /**
   * A connection of its own per call, closed after the reply, as the wallet hands proofs over in
   * Node (`src/client/handover-fetch.ts`); otherwise keep-alive connections, as the merchant's
   * facilitator client uses.
   */
  readonly freshConnection?: boolean;
}

/** Latency percentiles, ms. */
export interface Latency {
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
}

/** One flow run. */
export interface FlowResult {
  /** 1-minute load average of the machine at the end of the run (other processes included). */
  readonly load: number;
  /** Payments in flight at once. */
  readonly inFlight: number;
  /** From the first call to the last reply, seconds. */
  readonly durationS: number;
  /** Why no further payment started: the run's time was up, or every payment of the set had run. */
  readonly ended: 'duration' | 'payments ran out';
  /** Payments started. */
  readonly started: number;
  /** Payments whose every call answered as expected. */
  readonly completed: number;
  readonly paymentsPerSec: number;
  /** Of a whole (completed) payment. */
  readonly latencyMs: Latency;
  /** Per call: statuses (`error` for a failed connection) and the latency of its replies. */
  readonly steps: Record<string, { statusCodes: Record<string, number>; latencyMs: Latency }>;
  /** CPU time of the service process per completed payment, ms (verification included). */
  readonly serverCpuMsPerPayment: number;
  /** The same by thread role (main event loop, verification threads, the others). */
  readonly serverThreadsCpuMsPerPayment: ThreadsCpu;
  /** CPU time of this process (the load generator) per completed payment, ms. */
  readonly generatorCpuMsPerPayment: number;
}

const round = (ms: number) => Number(ms.toFixed(1));

function latencyOf(samples: number[]): Latency {
  samples.sort((a, b) => a - b);
  return {
    p50: round(percentile(samples, 50)),
    p90: round(percentile(samples, 90)),
    p99: round(percentile(samples, 99)),
    max: round(samples.at(-1) ?? Number.NaN),
  };
}

function post(
  step: FlowStep,
  body: Buffer,
  agent: Agent | false,
): Promise<{ status: number; reply: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      step.url,
      {
        method: 'POST',
        agent,
        headers: { ...step.headers, 'content-length': body.length },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.once('error', reject);
        res.once('end', () =>
          resolve({ status: res.statusCode ?? 0, reply: Buffer.concat(chunks).toString() }),
        );
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error('timeout')));
    req.once('error', reject);
    req.end(body);
  });
}

/**
 * Runs payments `from … payments-1` through `steps`, `inFlight` at a time, until `seconds` have
 * passed (no payment starts after that; those in flight finish) or every payment has started.
 * @param options.from the first payment (default 0)
 * @param options.pid the service process whose CPU time is accounted
 */
export async function runFlow(options: {
  from?: number;
  payments: number;
  inFlight: number;
  seconds: number;
  steps: readonly FlowStep[];
  pid: number;
}): Promise<FlowResult> {
  const { payments, inFlight, steps } = options;
  const agent = new Agent({ keepAlive: true, maxSockets: inFlight });
  const perStep = steps.map(() => ({
    statusCodes: {} as Record<string, number>,
    samples: [] as number[],
  }));
  const latencies: number[] = [];
  const from = options.from ?? 0;
  let next = from;
  let completed = 0;
  const cpuBefore = processCpuMs(options.pid);
  const threadsBefore = threadTimes(options.pid);
  const ownBefore = ownCpuMs();
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  let timeUp = false;

  const worker = async () => {
    for (;;) {
      if (performance.now() >= deadline) {
        timeUp = true;
        return;
      }
      if (next >= payments) return;
      const i = next++;
      const begun = performance.now();
      let ok = true;
      for (const [s, step] of steps.entries()) {
        const record = perStep[s]!;
        const sent = performance.now();
        try {
          const { status, reply } = await post(
            step,
            step.body(i),
            step.freshConnection ? false : agent,
          );
          record.statusCodes[status] = (record.statusCodes[status] ?? 0) + 1;
          record.samples.push(performance.now() - sent);
          ok = step.ok(status, reply, i);
        } catch {
          record.statusCodes.error = (record.statusCodes.error ?? 0) + 1;
          ok = false;
        }
        if (!ok) break;
      }
      if (ok) {
        completed++;
        latencies.push(performance.now() - begun);
      }
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const durationS = (performance.now() - started) / 1000;
  const serverCpu = processCpuMs(options.pid) - cpuBefore;
  const threads = threadsCpuBetween(options.pid, threadsBefore, threadTimes(options.pid));
  const ownCpu = ownCpuMs() - ownBefore;
  agent.destroy();
  const perPayment = (ms: number) => Number((ms / Math.max(1, completed)).toFixed(2));
  return {
    load: loadAverage(),
    inFlight,
    durationS,
    ended: timeUp ? 'duration' : 'payments ran out',
    started: next - from,
    completed,
    paymentsPerSec: completed / durationS,
    latencyMs: latencyOf(latencies),
    steps: Object.fromEntries(
      steps.map((step, s) => [
        step.name,
        { statusCodes: perStep[s]!.statusCodes, latencyMs: latencyOf(perStep[s]!.samples) },
      ]),
    ),
    serverCpuMsPerPayment: perPayment(serverCpu),
    serverThreadsCpuMsPerPayment: {
      main: perPayment(threads.main),
      primary: perPayment(threads.primary),
      niced: perPayment(threads.niced),
      other: perPayment(threads.other),
      busiestOther: perPayment(threads.busiestOther),
    },
    generatorCpuMsPerPayment: perPayment(ownCpu),
  };
}
