// What happened in each second of a load run: replies, 200 replies and their latency, so a chart
// can show throughput over the run (bench/charts.ts) rather than only its average.

/** One second of a run (`second` 1 is the first). */
export interface SecondOfRun {
  readonly second: number;
  /** Replies received in that second, any status. */
  readonly replies: number;
  /** 200 replies received in that second. */
  readonly ok: number;
  /** Median and 99th percentile latency of that second's 200 replies, ms (null when none). */
  readonly p50Ms: number | null;
  readonly p99Ms: number | null;
}

/** Collects replies by the second of the run they arrived in. */
export class Timeline {
  private readonly seconds: { replies: number; latencies: number[] }[] = [];

  /** @param startedAt `performance.now()` when the run started */
  constructor(private readonly startedAt: number) {}

  /** A reply arrived now, `status`, `latencyMs` after its request was sent (or due). */
  record(status: number, latencyMs: number, at = performance.now()): void {
    const index = Math.max(0, Math.floor((at - this.startedAt) / 1000));
    for (let i = this.seconds.length; i <= index; i++)
      this.seconds.push({ replies: 0, latencies: [] });
    const second = this.seconds[index]!;
    second.replies++;
    if (status === 200) second.latencies.push(latencyMs);
  }

  /** Every second from the first to the last reply, empty ones included. */
  perSecond(): SecondOfRun[] {
    const round = (ms: number) => Number(ms.toFixed(1));
    return this.seconds.map(({ replies, latencies }, i) => {
      const sorted = [...latencies].sort((a, b) => a - b);
      const at = (p: number) => {
        const ms = sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
        return ms === undefined ? null : round(ms);
      };
      return {
        second: i + 1,
        replies,
        ok: sorted.length,
        p50Ms: at(0.5),
        p99Ms: at(0.99),
      };
    });
  }
}
