// The default sampler when tracing is on and OTEL_TRACES_SAMPLER is unset (src/tracing/sdk.ts):
// parent-based, one request in ten starting a sampled trace (OTEL_TRACES_SAMPLER_ARG changes the
// ratio, a malformed one is ignored); a caller's sampled trace is followed, a dropped one stays
// dropped; a sampler the environment names is left to the SDK.

import { context, ROOT_CONTEXT, SpanKind, trace, TraceFlags } from '@opentelemetry/api';
import { SamplingDecision } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';

import { DEFAULT_TRACE_RATIO, defaultSampler } from '../../src/tracing/sdk.js';

/** A random 32-hex trace id, as the SDK draws them. */
function traceId(): string {
  return Array.from({ length: 32 }, () => Math.floor(Math.random() * 16).toString(16)).join('');
}

/** How many of `n` root requests the sampler samples. */
function sampledOf(n: number, env: NodeJS.ProcessEnv): number {
  const sampler = defaultSampler(env)!;
  let sampled = 0;
  for (let i = 0; i < n; i++) {
    const decision = sampler.shouldSample(
      ROOT_CONTEXT,
      traceId(),
      'POST /verify',
      SpanKind.SERVER,
      {},
      [],
    );
    if (decision.decision === SamplingDecision.RECORD_AND_SAMPLED) sampled++;
  }
  return sampled;
}

describe('the default sampler', () => {
  it('samples about one root request in ten (must-fail twin: not every one, not none)', () => {
    expect(DEFAULT_TRACE_RATIO).toBe(0.1);
    const sampled = sampledOf(4000, {});
    // 400 expected; the bounds are more than 8 standard deviations away.
    expect(sampled).toBeGreaterThan(250);
    expect(sampled).toBeLessThan(550);
  });

  it('takes OTEL_TRACES_SAMPLER_ARG as its ratio, and ignores a malformed one', () => {
    expect(sampledOf(2000, { OTEL_TRACES_SAMPLER_ARG: '1' })).toBe(2000);
    expect(sampledOf(2000, { OTEL_TRACES_SAMPLER_ARG: '0' })).toBe(0);
    const half = sampledOf(2000, { OTEL_TRACES_SAMPLER_ARG: '0.5' });
    expect(half).toBeGreaterThan(800);
    expect(half).toBeLessThan(1200);
    for (const arg of ['2', '-0.1', 'all', '0.1x'])
      expect(sampledOf(2000, { OTEL_TRACES_SAMPLER_ARG: arg })).toBeLessThan(300);
  });

  it("follows a caller's decision: a sampled parent is sampled, a dropped one is not", () => {
    const sampler = defaultSampler({ OTEL_TRACES_SAMPLER_ARG: '0' })!;
    const parent = (flags: TraceFlags) =>
      trace.setSpanContext(context.active(), {
        traceId: traceId(),
        spanId: '0123456789abcdef',
        traceFlags: flags,
        isRemote: true,
      });
    const decide = (flags: TraceFlags) =>
      sampler.shouldSample(parent(flags), traceId(), 'POST /verify', SpanKind.SERVER, {}, [])
        .decision;
    expect(decide(TraceFlags.SAMPLED)).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(
      defaultSampler({ OTEL_TRACES_SAMPLER_ARG: '1' })!.shouldSample(
        parent(TraceFlags.NONE),
        traceId(),
        'POST /verify',
        SpanKind.SERVER,
        {},
        [],
      ).decision,
    ).toBe(SamplingDecision.NOT_RECORD);
  });

  it('leaves a sampler the environment names to the SDK', () => {
    expect(defaultSampler({ OTEL_TRACES_SAMPLER: 'always_on' })).toBeUndefined();
    expect(defaultSampler({ OTEL_TRACES_SAMPLER: ' ' })).toBeDefined();
  });
});
