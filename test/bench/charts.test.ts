// The benches' charts (bench/charts.ts): drawn from a results JSON to a well-formed SVG that shows
// every series; a malformed results file is refused, never drawn half-empty; the committed charts
// are the ones the committed JSON draws.

import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { afterAll, describe, expect, it } from 'vitest';

import { ChartInputError, CHARTS, drawChart, redrawCharts } from '../../bench/charts.js';

const dir = mkdtempSync(join(tmpdir(), 'priv-stark-charts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Checks that `svg` is one well-formed XML element: tags balanced and properly nested, attributes
 * quoted, no stray `<` or `&` in text. Returns the text content of its `<text>` elements.
 */
function wellFormedSvg(svg: string): string[] {
  const body = svg.trim();
  expect(body.startsWith('<svg')).toBe(true);
  const stack: string[] = [];
  const texts: string[] = [];
  const token = /<(\/?)([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/y;
  let roots = 0;
  while (token.lastIndex < body.length) {
    const at = token.lastIndex;
    const match = token.exec(body);
    if (!match) throw new Error(`not well formed at ${at}: ${body.slice(at, at + 60)}`);
    const [, closing, name, , selfClosing, content] = match;
    if (content !== undefined) {
      if (stack.length === 0 && content.trim() !== '') throw new Error('text outside the root');
      if (/&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/.test(content))
        throw new Error(`bare & in ${content.slice(0, 40)}`);
      if (stack.at(-1) === 'text' || stack.at(-1) === 'tspan') texts.push(content);
      continue;
    }
    if (closing) {
      if (stack.pop() !== name) throw new Error(`</${name}> closes nothing open at ${at}`);
    } else {
      if (stack.length === 0 && ++roots > 1) throw new Error('more than one root element');
      if (!selfClosing) stack.push(name!);
    }
  }
  expect(stack).toEqual([]);
  return texts;
}

const environment = {
  date: '2026-01-02T03:04:05.000Z',
  node: 'v20.0.0',
  platform: 'linux-x64',
  cpu: 'Test CPU',
  cores: 2,
  memoryGiB: 8,
};
const t = (medianMs: number, p99Ms: number) => ({ medianMs, p99Ms, samples: 10 });
const proof = {
  bench: 'proof',
  environment,
  results: {
    native: {
      verifyIn: t(0.811, 1),
      verifyOff: t(1.2, 2),
      proveIn: t(101, 130),
    },
    wasm: {
      verifyIn: t(2.22, 3),
      verifyOff: t(2.71, 4),
      proveIn: t(433, 480),
    },
    groth16: { coldMs: 600, warm: t(29.5, 70) },
  },
};
const run = (reqPerSec: number, perSecond?: object[]) => ({
  reqPerSec,
  latencyMs: { p50: 2, p90: 3, p99: 5, max: 9 },
  ...(perSecond ? { perSecond } : {}),
});
const http = {
  environment,
  verifyMax: run(1400, [
    { second: 1, replies: 1333, ok: 1333, p50Ms: 2, p99Ms: 9 },
    { second: 2, replies: 1444, ok: 1444, p50Ms: 2, p99Ms: 8 },
  ]),
  verifyFixed: run(500, [{ second: 1, replies: 500, ok: 500, p50Ms: 1, p99Ms: 3 }]),
  settle: run(1700, [{ second: 1, replies: 1777, ok: 999, p50Ms: 5, p99Ms: 20 }]),
};

const restore = (mix: string, totalMs: number) => ({
  mix,
  run: 1,
  totalMs,
  loadBefore: [1.25, 1, 0.75],
  loadAfter: [1.5, 1, 0.75],
  parts: {
    leafRequestsMs: 9000,
    eventRequestsMs: 20000,
    leafWritesMs: 1500,
    treeHashingMs: 12000,
    depositMatchingMs: 30000,
    leavesSideMs: 25000,
    eventsSideMs: totalMs - 100,
    checkpointsAndSaveMs: 100,
  },
});
const recovery = {
  environment,
  leaves: 1000000,
  budgetMs: 60000,
  results: [restore('mixed', 41000), restore('distinct', 73000)],
};

const tracingMode = (reqPerSec: number, serverCpuMsPerRequest: number, main: number) => ({
  requests: reqPerSec * 10,
  non200: 0,
  reqPerSec,
  serverCpuMsPerRequest,
  mainThreadCpuMsPerRequest: main,
});
const tracing = {
  bench: 'tracing',
  environment,
  short: false,
  ratio: 0.967,
  off: tracingMode(912, 1.61, 0.62),
  on: tracingMode(882, 1.7, 0.69),
  segments: [
    { mode: 'off', round: 0, reqPerSec: 905 },
    { mode: 'on', round: 0, reqPerSec: 871 },
    { mode: 'on', round: 1, reqPerSec: 893 },
    { mode: 'off', round: 1, reqPerSec: 919 },
  ],
};

describe('bench charts', () => {
  it('draws the proof chart: a well-formed SVG with the three backends and their medians', async () => {
    const texts = wellFormedSvg(await drawChart('proof', proof));
    for (const series of ['native', 'WebAssembly', 'Groth16 (snarkjs)', 'verify', 'prove'])
      expect(texts).toContain(series);
    for (const median of ['0.811', '2.22', '29.5', '101', '433']) expect(texts).toContain(median);
    expect(texts.join(' ')).toContain('Test CPU');
  });

  it('draws the HTTP chart: latency per run and replies over each second of the run', async () => {
    const texts = wellFormedSvg(await drawChart('http', http));
    for (const series of ['/verify saturated', '/verify paced', '/settle', 'p50', 'p99', 'max'])
      expect(texts).toContain(series);
    expect(texts.join(' ')).toContain('replies per second over the run');
    // Without per-second figures (results from before they were recorded): the run averages.
    const { perSecond: _dropped, ...settle } = http.settle;
    const older = {
      ...http,
      verifyMax: { ...http.verifyMax, perSecond: undefined },
      verifyFixed: run(500),
      settle,
    };
    const olderTexts = wellFormedSvg(await drawChart('http', older));
    expect(olderTexts.join(' ')).toContain('average over the run');
  });

  it('draws the tracing chart: throughput and CPU per request, off and on; a short run says so', async () => {
    const texts = wellFormedSvg(await drawChart('tracing', tracing));
    for (const series of ['off', 'on', '/verify req/s', 'whole server', 'main thread'])
      expect(texts).toContain(series);
    expect(texts.join(' ')).toContain('on/off 0.967');
    expect(texts.join(' ')).not.toContain('short run');
    const short = wellFormedSvg(await drawChart('tracing', { ...tracing, short: true }));
    expect(short.join(' ')).toContain('short run, not a measurement');
    await expect(
      drawChart('tracing', { ...tracing, segments: [{ mode: 'context', reqPerSec: 1 }] }),
    ).rejects.toThrow(/segments\[0\]\.mode/);
  });

  it('draws the two-builds chart: each figure, a regression told apart; a change without a sign of better is refused', async () => {
    const figure = (name: string, better: string, change: number, regressed: boolean) => ({
      name,
      unit: '/s',
      better,
      base: [100, 101, 99],
      this: [100, 100, 100],
      baseMedian: 100,
      thisMedian: 100 * (1 + change),
      change,
      regressed,
    });
    const builds = {
      environment,
      tolerance: 0.05,
      commits: { base: 'aaaaaaa', this: 'bbbbbbb' },
      comparison: [
        figure('flow sqlite compact-upfront: payments/s', 'higher', 0.02, false),
        figure('http: /verify at 500/s p99', 'lower', 0.09, true),
      ],
    };
    const texts = wellFormedSvg(await drawChart('builds', builds));
    for (const label of [
      'flow sqlite compact-upfront: payments/s (/s)',
      'http: /verify at 500/s p99 (/s)',
      'within',
      'worse than the tolerance',
    ])
      expect(texts).toContain(label);
    expect(texts.join(' ')).toContain('this bbbbbbb against aaaaaaa');
    await expect(drawChart('builds', { ...builds, comparison: [] })).rejects.toThrow(/comparison/);
  });

  it('draws the runtimes chart: each runtime with its native and WebAssembly medians', async () => {
    const runtimes = {
      environment,
      results: [
        { runtime: 'node 22', backend: 'native', medianMs: 0.852 },
        { runtime: 'node 22', backend: 'wasm', medianMs: 2.33 },
        { runtime: 'deno', backend: 'wasm', medianMs: 1.91 },
      ],
    };
    const texts = wellFormedSvg(await drawChart('runtimes', runtimes));
    for (const label of ['node 22', 'deno', 'native', 'WebAssembly', '0.852', '2.33', '1.91'])
      expect(texts).toContain(label);
    await expect(
      drawChart('runtimes', { ...runtimes, results: [{ runtime: 'bun', backend: 'native' }] }),
    ).rejects.toThrow(/results\[0\]\.medianMs/);
  });

  it('draws the recovery chart: each restore against the budget and where its time went', async () => {
    const texts = wellFormedSvg(await drawChart('recovery', recovery));
    for (const series of ['mixed #1', 'distinct #1', 'tree hashing', 'deposit matching'])
      expect(texts).toContain(series);
    expect(texts.join(' ')).toContain('budget 60 s');
    expect(texts).toContain('1.25');
    const { budgetMs: _dropped, ...older } = recovery;
    await expect(drawChart('recovery', older)).rejects.toThrow(
      /budgetMs: expected a finite number/,
    );
  });
  it('draws the linkage chart: every heuristic and pair type, judged and all payments, with the pass bound', async () => {
    const line = (heuristic: string, pairType: string, scope: string, auc: number) => ({
      heuristic,
      pairType,
      scope,
      estimate: { auc, low: auc - 0.03, high: auc + 0.03, positives: 10, negatives: 90 },
    });
    const linkage = {
      environment,
      config: { name: 'default', compression: 1 },
      population: { wallets: 200, horizonSeconds: 3600 },
      lines: ['private', 'all'].flatMap((scope) => [
        line('address join', 'payment-payment', scope, 0.5),
        line('anchor join', 'payment-exit', scope, 0.47),
      ]),
    };
    const texts = wellFormedSvg(await drawChart('linkage', linkage));
    for (const series of [
      'address join',
      'anchor join',
      'payment-payment',
      'payment-exit',
      'payments by relay, inline or proxy',
      'all payments',
    ])
      expect(texts).toContain(series);
    expect(texts.join(' ')).toContain('200 wallets, 3600 s at 1×');
    await expect(
      drawChart('linkage', { ...linkage, lines: [{ ...linkage.lines[0], estimate: {} }] }),
    ).rejects.toThrow(/lines\[0\]\.estimate\.auc: expected a finite number/);
  });

  it('refuses a malformed results file and writes no chart for it', async () => {
    const broken = structuredClone(proof) as { results: { native: Record<string, unknown> } };
    broken.results.native.verifyIn = { medianMs: '0.8', p99Ms: 1 };
    await expect(drawChart('proof', broken)).rejects.toThrow(ChartInputError);
    await expect(drawChart('proof', broken)).rejects.toThrow(/results\.native\.verifyIn\.medianMs/);
    await expect(drawChart('proof', { ...proof, environment: undefined })).rejects.toThrow(
      /environment: expected an object/,
    );
    await expect(drawChart('http', { ...http, settle: run(1, []) })).rejects.toThrow(
      /settle\.perSecond: expected a non-empty array/,
    );
    await expect(drawChart('proof', [proof])).rejects.toThrow(ChartInputError);
    await expect(drawChart('nonesuch', proof)).rejects.toThrow(/no chart for bench/);

    const out = pathToFileURL(`${dir}/`);
    writeFileSync(join(dir, 'proof.json'), JSON.stringify(broken));
    await expect(redrawCharts(['proof'], out)).rejects.toThrow(ChartInputError);
    expect(readdirSync(dir)).toEqual(['proof.json']);
    writeFileSync(join(dir, 'proof.json'), JSON.stringify(proof));
    await redrawCharts(['proof'], out);
    wellFormedSvg(readFileSync(join(dir, 'proof.svg'), 'utf8'));
  });

  it('the committed charts are the ones the committed results draw (npm run bench:charts)', async () => {
    const results = new URL('../../bench/results/', import.meta.url);
    const names = readdirSync(results)
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.slice(0, -'.json'.length));
    // Every bench's results have a chart, and every chart its committed results.
    expect(names.sort()).toEqual(Object.keys(CHARTS).sort());
    for (const name of Object.keys(CHARTS)) {
      const json = JSON.parse(readFileSync(new URL(`${name}.json`, results), 'utf8'));
      const svg = await drawChart(name, json);
      wellFormedSvg(svg);
      expect(readFileSync(new URL(`${name}.svg`, results), 'utf8'), `${name}.svg`).toBe(`${svg}\n`);
    }
  });
});
