// The benches' charts: one SVG beside each results table (bench/results/<name>.svg), drawn with
// Vega-Lite (https://vega.github.io/vega-lite/) compiled to Vega and rendered to SVG in Node
// (`View.toSVG()`, no canvas). Each chart is drawn from the bench's results JSON alone, so the
// charts can be redrawn without rerunning a bench:
//
//   npm run bench:charts            → redraws every bench/results/<name>.svg from <name>.json
//   npx tsx bench/charts.ts proof   → only the named ones
//
// A results file without the fields its chart reads is refused (ChartInputError), never drawn
// half-empty.

import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

import { auditChart } from './audit-chart.js';

/** A results file that does not have the shape its chart reads. */
export class ChartInputError extends Error {
  override readonly name = 'ChartInputError';
}

// --- reading the results JSON --------------------------------------------------------------------

export type Fields = Record<string, unknown>;

export function fields(value: unknown, path: string): Fields {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ChartInputError(`${path}: expected an object`);
  return value as Fields;
}

export function num(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new ChartInputError(`${path}: expected a finite number`);
  return value;
}

function list(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value) || value.length === 0)
    throw new ChartInputError(`${path}: expected a non-empty array`);
  return value;
}

function text(value: unknown, path: string): string {
  if (typeof value !== 'string' || value.length === 0)
    throw new ChartInputError(`${path}: expected a string`);
  return value;
}

/** `{ medianX, p99X }` of a timing, in the unit its field names carry. */
function timing(value: unknown, path: string, unit: 'Ms' | 'Us') {
  const f = fields(value, path);
  return {
    median: num(f[`median${unit}`], `${path}.median${unit}`),
    p99: num(f[`p99${unit}`], `${path}.p99${unit}`),
  };
}

/** The line under each chart's title: when and where the bench ran. */
function subtitle(json: Fields): string {
  const env = fields(json.environment, 'environment');
  const date = text(env.date, 'environment.date').slice(0, 10);
  return `${date} · ${text(env.cpu, 'environment.cpu')} · ${num(env.cores, 'environment.cores')} cores · Node ${text(env.node, 'environment.node')}`;
}

// --- the charts ----------------------------------------------------------------------------------

const BACKEND_COLORS: Record<string, string> = {
  native: '#4c78a8',
  WebAssembly: '#f58518',
  'Groth16 (snarkjs)': '#e45756',
};

/** A color scale of the backends shown (the same color for a backend in every chart). */
function backends(...names: string[]) {
  return { domain: names, range: names.map((n) => BACKEND_COLORS[n]!) };
}

/** Axis labels of the form `name (detail)` on two lines. */
const TWO_LINE_LABELS =
  "indexof(datum.label, ' (') < 0 ? datum.label : [slice(datum.label, 0, indexof(datum.label, ' (')), slice(datum.label, indexof(datum.label, ' (') + 1)]";
const FONT = { font: 'Helvetica, Arial, sans-serif' };

export function frame(
  title: string,
  json: Fields,
): Pick<TopLevelSpec, '$schema' | 'config' | 'title'> {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: title, subtitle: subtitle(json), anchor: 'start' },
    config: { ...FONT, view: { stroke: null }, axis: { grid: true, gridOpacity: 0.4 } },
  };
}

/** Bars (median), a tick (p99) and the median as a label, grouped by backend. */
function medianBars(unit: string, scale: 'linear' | 'log', label: string) {
  const y = {
    field: 'median',
    type: 'quantitative' as const,
    title: `median (bar) and p99 (tick), ${unit}${scale === 'log' ? ', log scale' : ''}`,
    scale: { type: scale, ...(scale === 'log' ? {} : { zero: true }) },
    // Side by side, never stacked: a stack starts at 0, which a log scale cannot show.
    stack: null,
  };
  return [
    { mark: { type: 'bar' as const, tooltip: true }, encoding: { y } },
    {
      mark: { type: 'tick' as const, color: 'black', thickness: 2 },
      encoding: { y: { ...y, field: 'p99' } },
    },
    {
      mark: { type: 'text' as const, dy: -6, fontSize: 10 },
      encoding: { y, text: { field: 'median', type: 'quantitative' as const, format: label } },
    },
  ];
}

/** Operations side by side, native and WebAssembly bars for each (log scale, median and p99). */
function operationsByBackend(
  title: string,
  json: Fields,
  rows: readonly Record<string, unknown>[],
  width: number,
  unit: string,
): TopLevelSpec {
  return {
    ...frame(title, json),
    data: { values: rows },
    width,
    height: 280,
    encoding: {
      x: {
        field: 'operation',
        type: 'nominal',
        title: null,
        sort: null,
        axis: { labelAngle: 0, labelLimit: 200, labelExpr: TWO_LINE_LABELS },
      },
      xOffset: { field: 'backend', type: 'nominal', sort: ['native', 'WebAssembly'] },
      color: {
        field: 'backend',
        type: 'nominal',
        scale: backends('native', 'WebAssembly'),
        legend: { title: null, orient: 'top' },
      },
    },
    layer: medianBars(unit, 'log', ',.3~r'),
  } as TopLevelSpec;
}

/** Spend proof: native vs WebAssembly vs the Groth16 baseline, verify and prove. */
function proofChart(json: Fields): TopLevelSpec {
  const results = fields(json.results, 'results');
  const rows: Fields[] = [];
  for (const [key, backend] of [
    ['native', 'native'],
    ['wasm', 'WebAssembly'],
  ] as const) {
    const r = fields(results[key], `results.${key}`);
    for (const [field, operation, where] of [
      ['verifyIn', 'verify', 'in thread'],
      ['verifyOff', 'verify', 'off the JS thread'],
      ['proveIn', 'prove', 'in thread'],
    ] as const)
      rows.push({
        backend,
        operation,
        where,
        ...timing(r[field], `results.${key}.${field}`, 'Ms'),
      });
  }
  const groth16 = fields(results.groth16, 'results.groth16');
  rows.push({
    backend: 'Groth16 (snarkjs)',
    operation: 'verify',
    where: 'in thread',
    ...timing(groth16.warm, 'results.groth16.warm', 'Ms'),
  });
  return {
    ...frame('Spend proof: native vs WebAssembly vs Groth16 (ms)', json),
    data: { values: rows },
    facet: {
      column: {
        field: 'operation',
        type: 'nominal',
        sort: ['verify', 'prove'],
        title: null,
        header: { labelFontSize: 13, labelFontWeight: 'bold' },
      },
    },
    spec: {
      width: 260,
      height: 260,
      encoding: {
        x: { field: 'where', type: 'nominal', title: null, axis: { labelAngle: 0 } },
        xOffset: {
          field: 'backend',
          type: 'nominal',
          sort: ['native', 'WebAssembly', 'Groth16 (snarkjs)'],
        },
        color: {
          field: 'backend',
          type: 'nominal',
          scale: backends('native', 'WebAssembly', 'Groth16 (snarkjs)'),
          legend: { title: null, orient: 'top' },
        },
      },
      layer: medianBars('ms', 'linear', ',.3~r'),
    },
    resolve: { scale: { y: 'independent' } },
  } as TopLevelSpec;
}

/** Core primitives: native vs WebAssembly per operation (µs, log scale). */
function coreChart(json: Fields): TopLevelSpec {
  const rows = list(json.rows, 'rows').flatMap((value, i) => {
    const row = fields(value, `rows[${i}]`);
    const name = text(row.name, `rows[${i}].name`);
    return [
      { operation: name, backend: 'native', ...timing(row.native, `rows[${i}].native`, 'Us') },
      { operation: name, backend: 'WebAssembly', ...timing(row.wasm, `rows[${i}].wasm`, 'Us') },
    ];
  });
  return operationsByBackend('Core primitives: native vs WebAssembly (µs)', json, rows, 620, 'µs');
}

/** Verification on each runtime: the published API's verifySpend median, native vs WebAssembly. */
function runtimesChart(json: Fields): TopLevelSpec {
  const rows = list(json.results, 'results').map((value, i) => {
    const row = fields(value, `results[${i}]`);
    const backend = text(row.backend, `results[${i}].backend`);
    return {
      runtime: text(row.runtime, `results[${i}].runtime`),
      backend: backend === 'wasm' ? 'WebAssembly' : backend,
      median: num(row.medianMs, `results[${i}].medianMs`),
    };
  });
  return {
    ...frame('Verification per runtime: native vs WebAssembly (ms, median)', json),
    data: { values: rows },
    width: 620,
    height: 260,
    encoding: {
      x: { field: 'runtime', type: 'nominal', title: null, sort: null, axis: { labelAngle: 0 } },
      xOffset: { field: 'backend', type: 'nominal', sort: ['native', 'WebAssembly'] },
      color: {
        field: 'backend',
        type: 'nominal',
        scale: backends('native', 'WebAssembly'),
        legend: { title: null, orient: 'top' },
      },
      y: {
        field: 'median',
        type: 'quantitative',
        title: 'verifySpend median, ms',
        scale: { zero: true },
      },
    },
    layer: [
      { mark: { type: 'bar', tooltip: true } },
      {
        mark: { type: 'text', dy: -6, fontSize: 10 },
        encoding: { text: { field: 'median', type: 'quantitative', format: ',.3~r' } },
      },
    ],
  } as TopLevelSpec;
}

/** The ledger: durable transitions per second per store, and deposits one at a time vs grouped. */
function poolChart(json: Fields): TopLevelSpec {
  const stores = fields(json.stores, 'stores');
  const ceilings = list(json.verifyCeilings, 'verifyCeilings').map((c, i) =>
    num(c, `verifyCeilings[${i}]`),
  );
  const ceiling = [...ceilings].sort((a, b) => a - b)[Math.floor(ceilings.length / 2)]!;
  const transitions: Fields[] = [];
  const runs: Fields[] = [];
  const budgets: Fields[] = [];
  const deposits: Fields[] = [];
  for (const [store, value] of Object.entries(stores)) {
    const s = fields(value, `stores.${store}`);
    const t = fields(s.transitionsPerSecond, `stores.${store}.transitionsPerSecond`);
    const at = `stores.${store}.transitionsPerSecond`;
    transitions.push(
      { store, kind: 'one process', perSecond: num(t.median, `${at}.median`) },
      { store, kind: 'two processes', perSecond: num(t.twoProcesses, `${at}.twoProcesses`) },
    );
    for (const [i, r] of list(t.runs, `${at}.runs`).entries())
      runs.push({ store, kind: 'one process', perSecond: num(r, `${at}.runs[${i}]`) });
    budgets.push({ store, budget: num(s.budget, `stores.${store}.budget`) });
    const d = fields(s.depositsPerSecond, `stores.${store}.depositsPerSecond`);
    deposits.push(
      { store, kind: 'one at a time', perSecond: num(d.oneAtATime, `${store}.oneAtATime`) },
      { store, kind: 'grouped', perSecond: num(d.grouped, `${store}.grouped`) },
    );
  }
  if (transitions.length === 0) throw new ChartInputError('stores: expected at least one store');
  const x = { field: 'store', type: 'nominal', title: null, axis: { labelAngle: 0 } };
  const color = (title: string, order: string[]) => ({
    field: 'kind',
    type: 'nominal',
    sort: order,
    legend: { title, orient: 'top', direction: 'vertical' },
  });
  const transitionKinds = ['one process', 'two processes'];
  const depositKinds = ['one at a time', 'grouped'];
  return {
    ...frame('Ledger: durable transitions and deposits per second', json),
    hconcat: [
      {
        width: 300,
        height: 260,
        title: {
          text: 'settlement transitions/s',
          subtitle: `bars: median · dots: runs · red: budget · dashed: verify ceiling ${ceiling.toFixed(0)}/s`,
        },
        layer: [
          {
            data: { values: transitions },
            mark: { type: 'bar', tooltip: true },
            encoding: {
              x,
              xOffset: { field: 'kind', type: 'nominal', sort: transitionKinds },
              y: { field: 'perSecond', type: 'quantitative', title: 'per second' },
              color: color('transitions', transitionKinds),
            },
          },
          {
            data: { values: runs },
            mark: { type: 'point', color: 'black', filled: true, size: 25 },
            encoding: {
              x,
              xOffset: { field: 'kind', type: 'nominal', sort: transitionKinds },
              y: { field: 'perSecond', type: 'quantitative' },
            },
          },
          {
            data: { values: budgets },
            mark: { type: 'tick', color: 'firebrick', thickness: 2 },
            encoding: { x, y: { field: 'budget', type: 'quantitative' } },
          },
          {
            data: { values: [{ ceiling }] },
            mark: { type: 'rule', strokeDash: [6, 4], color: 'gray' },
            encoding: { y: { field: 'ceiling', type: 'quantitative' } },
          },
        ],
      },
      {
        width: 220,
        height: 260,
        title: 'deposits/s (log scale)',
        data: { values: deposits },
        mark: { type: 'bar', tooltip: true },
        encoding: {
          x,
          xOffset: { field: 'kind', type: 'nominal', sort: depositKinds },
          y: {
            field: 'perSecond',
            type: 'quantitative',
            title: 'per second',
            scale: { type: 'log' },
            stack: null,
          },
          color: color('deposits', depositKinds),
        },
      },
    ],
    resolve: { scale: { color: 'independent' } },
  } as TopLevelSpec;
}

/** The client: wallet sync, proof building and the full paid request. */
function clientChart(json: Fields): TopLevelSpec {
  const sync = fields(json.sync, 'sync');
  const payments = fields(json.payments, 'payments');
  const syncRuns = list(sync.runsMs, 'sync.runsMs').map((r, i) => ({
    run: i + 1,
    ms: num(r, `sync.runsMs[${i}]`),
  }));
  const leaves = num(sync.leaves, 'sync.leaves');
  const steps = (
    [
      ['proofBuilding', 'proof building'],
      ['paidRequest', 'full paid request'],
    ] as const
  ).map(([key, name]) => {
    const s = fields(payments[key], `payments.${key}`);
    return {
      measurement: name,
      median: num(s.p50Ms, `payments.${key}.p50Ms`),
      p99: num(s.p99Ms, `payments.${key}.p99Ms`),
    };
  });
  return {
    ...frame(`Client (${text(payments.backend, 'payments.backend')} core)`, json),
    hconcat: [
      {
        width: 200,
        height: 240,
        title: `wallet sync, ${leaves} leaves (runs)`,
        data: { values: syncRuns },
        mark: { type: 'bar', tooltip: true, color: '#4c78a8' },
        encoding: {
          x: { field: 'run', type: 'ordinal', axis: { labelAngle: 0 } },
          y: { field: 'ms', type: 'quantitative', title: 'ms' },
        },
      },
      {
        width: 240,
        height: 240,
        title: 'per payment: p50 (bar) and p99 (tick)',
        data: { values: steps },
        encoding: {
          x: {
            field: 'measurement',
            type: 'nominal',
            title: null,
            sort: null,
            axis: { labelAngle: 0 },
          },
        },
        layer: medianBars('ms', 'linear', '.0f').map((layer, i) =>
          i === 0 ? { ...layer, mark: { ...layer.mark, color: '#f58518' } } : layer,
        ),
      },
    ],
  } as TopLevelSpec;
}

const HTTP_RUNS = [
  ['verifyMax', '/verify saturated'],
  ['verifyFixed', '/verify paced'],
  ['settle', '/settle'],
] as const;

/** The facilitator under load: latency percentiles per run and replies per second over each run. */
function httpChart(json: Fields): TopLevelSpec {
  const latency: Fields[] = [];
  const seconds: Fields[] = [];
  const averages: Fields[] = [];
  for (const [key, run] of HTTP_RUNS) {
    const r = fields(json[key], key);
    const l = fields(r.latencyMs, `${key}.latencyMs`);
    for (const p of ['p50', 'p90', 'p99', 'max'] as const)
      latency.push({ run, percentile: p, ms: num(l[p], `${key}.latencyMs.${p}`) });
    averages.push({ run, perSecond: num(r.reqPerSec, `${key}.reqPerSec`) });
    if (r.perSecond === undefined) continue;
    for (const [i, value] of list(r.perSecond, `${key}.perSecond`).entries()) {
      const s = fields(value, `${key}.perSecond[${i}]`);
      seconds.push({
        run,
        second: num(s.second, `${key}.perSecond[${i}].second`),
        replies: num(s.replies, `${key}.perSecond[${i}].replies`),
        ok: num(s.ok, `${key}.perSecond[${i}].ok`),
      });
    }
  }
  const color = {
    field: 'run',
    type: 'nominal',
    sort: HTTP_RUNS.map(([, run]) => run),
    legend: { title: null, orient: 'top', labelLimit: 240 },
  };
  const throughput =
    seconds.length > 0
      ? {
          width: 320,
          height: 240,
          title: 'replies per second over the run (dashed: 200 only)',
          data: { values: seconds },
          layer: [
            {
              mark: { type: 'line', point: true, tooltip: true },
              encoding: {
                x: { field: 'second', type: 'quantitative', title: 'second of the run' },
                y: { field: 'replies', type: 'quantitative', title: 'replies/s' },
                color,
              },
            },
            {
              mark: { type: 'line', strokeDash: [4, 3] },
              encoding: {
                x: { field: 'second', type: 'quantitative' },
                y: { field: 'ok', type: 'quantitative' },
                color,
              },
            },
          ],
        }
      : {
          width: 320,
          height: 240,
          title: 'requests per second, average over the run',
          data: { values: averages },
          mark: { type: 'bar', tooltip: true },
          encoding: {
            x: { field: 'run', type: 'nominal', title: null, axis: { labelAngle: 0 }, sort: null },
            y: { field: 'perSecond', type: 'quantitative', title: 'requests/s' },
            color,
          },
        };
  return {
    ...frame('Facilitator HTTP load', json),
    hconcat: [
      {
        width: 260,
        height: 240,
        title: 'latency distribution per run (ms, log scale)',
        data: { values: latency },
        mark: { type: 'line', point: true, tooltip: true },
        encoding: {
          x: {
            field: 'percentile',
            type: 'ordinal',
            sort: ['p50', 'p90', 'p99', 'max'],
            axis: { labelAngle: 0 },
          },
          y: { field: 'ms', type: 'quantitative', scale: { type: 'log' }, title: 'ms' },
          color,
        },
      },
      throughput,
    ],
  } as TopLevelSpec;
}

function flowChart(json: Fields): TopLevelSpec {
  const flows = list(json.flows, 'flows').map((value, i) => {
    const f = fields(value, `flows[${i}]`);
    const flow = fields(f.flow, `flows[${i}].flow`);
    const latency = fields(f.latencyMs, `flows[${i}].latencyMs`);
    return {
      store: text(f.store, `flows[${i}].store`),
      flow: `${text(flow.transport, `flows[${i}].flow.transport`) === 'reference' ? 'compact' : 'inline'} ${text(flow.flow, `flows[${i}].flow.flow`)}`,
      paymentsPerSec: num(f.paymentsPerSec, `flows[${i}].paymentsPerSec`),
      p50: num(latency.p50, `flows[${i}].latencyMs.p50`),
      p99: num(latency.p99, `flows[${i}].latencyMs.p99`),
      cpu: num(f.serverCpuMsPerPayment, `flows[${i}].serverCpuMsPerPayment`),
    };
  });
  const panel = (title: string, field: string, axis: string) => ({
    width: 220,
    height: 220,
    title,
    data: { values: flows },
    mark: { type: 'bar' as const, tooltip: true },
    encoding: {
      x: { field: 'flow', type: 'nominal' as const, title: null, axis: { labelAngle: -30 } },
      xOffset: { field: 'store' },
      y: { field, type: 'quantitative' as const, title: axis },
      color: { field: 'store', type: 'nominal' as const, title: 'store' },
    },
  });
  return {
    ...frame('Whole flow: hand-over + the facilitator calls of one payment', json),
    hconcat: [
      panel('payments per second', 'paymentsPerSec', 'payments/s'),
      panel('latency of a whole payment, p99', 'p99', 'ms'),
      panel('service CPU per payment', 'cpu', 'ms'),
    ],
  } as TopLevelSpec;
}

/** Scale: payments/s and CPU per payment by worker count, one bar group per flow. */
function scaleChart(json: Fields): TopLevelSpec {
  const rows = list(json.rows, 'rows').map((value, i) => {
    const r = fields(value, `rows[${i}]`);
    return {
      flow: text(r.flow, `rows[${i}].flow`) === 'inline-authorization' ? 'inline' : 'compact',
      workers: `${num(r.workers, `rows[${i}].workers`)} worker(s)`,
      paymentsPerSec: num(r.paymentsPerSec, `rows[${i}].paymentsPerSec`),
      cpu: num(r.serverCpuMsPerPayment, `rows[${i}].serverCpuMsPerPayment`),
    };
  });
  return {
    ...frame('The service on N worker processes (verify + settle, SQLite)', json),
    hconcat: throughputAndCpuPanels(rows, 'flow', { field: 'workers', title: 'processes' }, ''),
  } as TopLevelSpec;
}

/**
 * Payments/s and service CPU per payment side by side: bars by `x`, grouped by `group` within it
 * (the scale and levers charts).
 */
function throughputAndCpuPanels(
  rows: readonly Record<string, unknown>[],
  x: string,
  group: { field: string; title: string | null; sort?: { field: string } },
  cpuNote: string,
) {
  const sort = group.sort ? { sort: group.sort } : {};
  const panel = (title: string, field: string, axis: string) => ({
    width: 260,
    height: 220,
    title,
    data: { values: rows },
    mark: { type: 'bar' as const, tooltip: true },
    encoding: {
      x: { field: x, type: 'nominal' as const, title: null, axis: { labelAngle: 0 } },
      xOffset: { field: group.field, ...sort },
      y: { field, type: 'quantitative' as const, title: axis },
      color: { field: group.field, type: 'nominal' as const, title: group.title, ...sort },
    },
  });
  return [
    panel('payments per second (median)', 'paymentsPerSec', 'payments/s'),
    panel(`service CPU per payment${cpuNote}`, 'cpu', 'ms'),
  ];
}

/** Levers: payments/s and service CPU per payment before and after each lever. */
function leversChart(json: Fields): TopLevelSpec {
  const rows = list(json.levers, 'levers').flatMap((value, i) => {
    const lever = fields(value, `levers[${i}]`);
    return (['before', 'after'] as const).map((side) => {
      const s = fields(lever[side], `levers[${i}].${side}`);
      return {
        lever: text(lever.id, `levers[${i}].id`),
        side: `${side}: ${text(s.name, `levers[${i}].${side}.name`)}`,
        order: side === 'before' ? 0 : 1,
        paymentsPerSec: num(s.paymentsPerSec, `levers[${i}].${side}.paymentsPerSec`),
        cpu: num(s.serverCpuMsPerPayment, `levers[${i}].${side}.serverCpuMsPerPayment`),
      };
    });
  });
  return {
    ...frame('One lever at a time (compact flow, SQLite)', json),
    hconcat: throughputAndCpuPanels(
      rows,
      'lever',
      { field: 'side', title: null, sort: { field: 'order' } },
      ' (median)',
    ),
  } as TopLevelSpec;
}

const TRACING_MODES = ['off', 'on'];

/** Traces: /verify throughput and CPU per request with tracing off and on, interleaved rounds. */
function tracingChart(json: Fields): TopLevelSpec {
  const totals: Fields[] = [];
  const cpu: Fields[] = [];
  for (const mode of TRACING_MODES) {
    const m = fields(json[mode], mode);
    totals.push({ mode, reqPerSec: num(m.reqPerSec, `${mode}.reqPerSec`) });
    cpu.push(
      {
        mode,
        thread: 'whole server',
        ms: num(m.serverCpuMsPerRequest, `${mode}.serverCpuMsPerRequest`),
      },
      {
        mode,
        thread: 'main thread',
        ms: num(m.mainThreadCpuMsPerRequest, `${mode}.mainThreadCpuMsPerRequest`),
      },
    );
  }
  const rounds = list(json.segments, 'segments').map((value, i) => {
    const s = fields(value, `segments[${i}]`);
    const mode = text(s.mode, `segments[${i}].mode`);
    if (!TRACING_MODES.includes(mode)) throw new ChartInputError(`segments[${i}].mode: ${mode}`);
    return { mode, reqPerSec: num(s.reqPerSec, `segments[${i}].reqPerSec`) };
  });
  const ratio = num(json.ratio, 'ratio');
  const short = json.short === true ? ' · short run, not a measurement' : '';
  const x = {
    field: 'mode',
    type: 'nominal',
    sort: TRACING_MODES,
    title: 'tracing',
    axis: { labelAngle: 0 },
  };
  // One legend for both panels (their color scales are shared).
  const color = {
    field: 'mode',
    type: 'nominal',
    sort: TRACING_MODES,
    scale: { domain: TRACING_MODES, range: ['#4c78a8', '#f58518'] },
    legend: { title: 'tracing', orient: 'top' },
  };
  return {
    ...frame(`Traces: /verify with tracing off and on (on/off ${ratio.toFixed(3)})${short}`, json),
    hconcat: [
      {
        width: 220,
        height: 240,
        title: { text: '/verify req/s', subtitle: 'bars: all rounds · dots: each round' },
        layer: [
          {
            data: { values: totals },
            mark: { type: 'bar', tooltip: true },
            encoding: { x, y: { field: 'reqPerSec', type: 'quantitative', title: 'req/s' }, color },
          },
          {
            data: { values: rounds },
            mark: { type: 'point', color: 'black', filled: true, size: 25 },
            encoding: { x, y: { field: 'reqPerSec', type: 'quantitative' } },
          },
        ],
      },
      {
        width: 260,
        height: 240,
        title: 'CPU per request (ms)',
        data: { values: cpu },
        mark: { type: 'bar', tooltip: true },
        encoding: {
          x: {
            field: 'thread',
            type: 'nominal',
            title: null,
            sort: ['whole server', 'main thread'],
            axis: { labelAngle: 0 },
          },
          xOffset: { field: 'mode', type: 'nominal', sort: TRACING_MODES },
          y: { field: 'ms', type: 'quantitative', title: 'ms per request' },
          color,
        },
      },
    ],
  } as TopLevelSpec;
}

/** Recovery: a restore's time against the budget, and where it went (the two sides overlap). */
function recoveryChart(json: Fields): TopLevelSpec {
  const budget = num(json.budgetMs, 'budgetMs') / 1000;
  const leaves = num(json.leaves, 'leaves');
  const parts = [
    ['leavesSideMs', 'leaves side (wall)'],
    ['treeHashingMs', 'tree hashing'],
    ['leafRequestsMs', 'leaf requests'],
    ['eventsSideMs', 'events side (wall)'],
    ['depositMatchingMs', 'deposit matching'],
    ['eventRequestsMs', 'event requests'],
  ] as const;
  const restores: Fields[] = [];
  const split: Fields[] = [];
  for (const [i, value] of list(json.results, 'results').entries()) {
    const r = fields(value, `results[${i}]`);
    const restore = `${text(r.mix, `results[${i}].mix`)} #${num(r.run, `results[${i}].run`)}`;
    const load = list(r.loadBefore, `results[${i}].loadBefore`);
    restores.push({
      restore,
      seconds: num(r.totalMs, `results[${i}].totalMs`) / 1000,
      load: num(load[0], `results[${i}].loadBefore[0]`),
    });
    const p = fields(r.parts, `results[${i}].parts`);
    for (const [key, name] of parts)
      split.push({
        restore,
        part: name,
        seconds: num(p[key], `results[${i}].parts.${key}`) / 1000,
      });
  }
  const x = { field: 'restore', type: 'nominal', title: null, axis: { labelAngle: 0 } };
  return {
    ...frame(`Recovery: a wallet restored from its key against ${leaves} leaves`, json),
    hconcat: [
      {
        width: 200,
        height: 260,
        title: {
          text: 'restore (one sync), s',
          subtitle: `red: budget ${budget} s · label: load (1 min) at the start`,
        },
        layer: [
          {
            data: { values: restores },
            mark: { type: 'bar', tooltip: true, color: '#4c78a8' },
            encoding: { x, y: { field: 'seconds', type: 'quantitative', title: 's' } },
          },
          {
            data: { values: restores },
            mark: { type: 'text', dy: -6, fontSize: 10 },
            encoding: {
              x,
              y: { field: 'seconds', type: 'quantitative' },
              text: { field: 'load', type: 'quantitative', format: '.2f' },
            },
          },
          {
            data: { values: [{ budget }] },
            mark: { type: 'rule', color: 'firebrick', strokeWidth: 2 },
            encoding: { y: { field: 'budget', type: 'quantitative' } },
          },
        ],
      },
      {
        width: 360,
        height: 260,
        title: {
          text: 'where the time went, s',
          subtitle: 'the sides run at once; parts inside a side are summed and overlap',
        },
        data: { values: split },
        mark: { type: 'bar', tooltip: true },
        encoding: {
          x,
          xOffset: { field: 'part', type: 'nominal', sort: parts.map(([, name]) => name) },
          y: { field: 'seconds', type: 'quantitative', title: 's' },
          color: {
            field: 'part',
            type: 'nominal',
            sort: parts.map(([, name]) => name),
            legend: { title: null, orient: 'right' },
          },
        },
      },
    ],
  } as TopLevelSpec;
}

/**
 * Ready notes: eight at once against 3× one, ten back to back against 3 s — with ready notes,
 * without, and with fast checkpoints instead.
 */
function readyNotesChart(json: Fields): TopLevelSpec {
  const budgets = fields(json.budgets, 'budgets');
  const ratio = num(budgets.atOnceRatio, 'budgets.atOnceRatio');
  const backToBackBudget = num(budgets.backToBackMs, 'budgets.backToBackMs') / 1000;
  const summary = fields(json.summary, 'summary');
  const rows: Fields[] = [];
  const limits: Fields[] = [];
  const modes = ['ready notes', 'without', 'fast checkpoints'].filter((m) => m in summary);
  for (const mode of modes) {
    const s = fields(summary[mode], `summary.${mode}`);
    const single = num(s.singleMs, `summary.${mode}.singleMs`) / 1000;
    rows.push(
      { panel: 'at once', mode, what: 'one payment', seconds: single },
      {
        panel: 'at once',
        mode,
        what: `${num(json.atOnce, 'atOnce')} at once`,
        seconds: num(s.atOnceMs, `summary.${mode}.atOnceMs`) / 1000,
      },
      {
        panel: 'back to back',
        mode,
        what: `${num(json.backToBack, 'backToBack')} back to back`,
        seconds: num(s.backToBackMs, `summary.${mode}.backToBackMs`) / 1000,
      },
    );
    if (mode === 'ready notes') limits.push({ panel: 'at once', limit: ratio * single });
  }
  limits.push({ panel: 'back to back', limit: backToBackBudget });
  const colors = { domain: modes, range: ['#4c78a8', '#bab0ac', '#f58518'].slice(0, modes.length) };
  const panel = (name: string, subtitle: string) => ({
    width: 260,
    height: 260,
    title: { text: name === 'at once' ? 'at once vs one payment, s' : 'back to back, s', subtitle },
    layer: [
      {
        data: { values: rows.filter((r) => r.panel === name) },
        mark: { type: 'bar', tooltip: true },
        encoding: {
          x: { field: 'what', type: 'nominal', title: null, axis: { labelAngle: 0 } },
          xOffset: { field: 'mode', type: 'nominal' },
          y: {
            field: 'seconds',
            type: 'quantitative',
            title: 's (log scale)',
            scale: { type: 'log' },
            // Side by side, never stacked: a stack starts at 0, which a log scale cannot show.
            stack: null,
          },
          color: { field: 'mode', type: 'nominal', scale: colors, legend: { title: null } },
        },
      },
      {
        data: { values: limits.filter((l) => l.panel === name) },
        mark: { type: 'rule', color: 'firebrick', strokeWidth: 2 },
        encoding: { y: { field: 'limit', type: 'quantitative', scale: { type: 'log' } } },
      },
    ],
  });
  return {
    ...frame(
      `Ready notes: one deposit, checkpoints every ${num(json.checkpointIntervalMs, 'checkpointIntervalMs')} ms`,
      json,
    ),
    hconcat: [
      panel('at once', `red: ${ratio}× one payment with ready notes`),
      panel('back to back', `red: ${backToBackBudget} s`),
    ],
  } as TopLevelSpec;
}

/**
 * The linkage test: each heuristic's ROC AUC with its 95 % interval, per pair type, for payments by
 * relay, inline or proxy (judged: the red rule at the pass bound) and for all payments; 0.5 is a
 * coin toss.
 */
function linkageChart(json: Fields): TopLevelSpec {
  const config = fields(json.config, 'config');
  const bound = 0.6;
  const rows = list(json.lines, 'lines').map((value, i) => {
    const l = fields(value, `lines[${i}]`);
    const e = fields(l.estimate, `lines[${i}].estimate`);
    const scope = text(l.scope, `lines[${i}].scope`);
    return {
      heuristic: text(l.heuristic, `lines[${i}].heuristic`),
      pairs: text(l.pairType, `lines[${i}].pairType`),
      scope: scope === 'private' ? 'payments by relay, inline or proxy' : 'all payments',
      auc: num(e.auc, `lines[${i}].estimate.auc`),
      low: num(e.low, `lines[${i}].estimate.low`),
      high: num(e.high, `lines[${i}].estimate.high`),
    };
  });
  const population = fields(json.population, 'population');
  const x = {
    type: 'quantitative' as const,
    scale: { domain: [0, 1] },
    title: 'ROC AUC, 95 % interval',
  };
  return {
    ...frame(
      `Linkage test (${text(config.name, 'config.name')}): ${num(population.wallets, 'population.wallets')} wallets, ${num(population.horizonSeconds, 'population.horizonSeconds')} s at ${num(config.compression, 'config.compression')}× — dashed: chance (0.5); red: the pass bound (${bound}), judged on the left`,
      json,
    ),
    data: { values: rows },
    facet: { column: { field: 'scope', type: 'nominal', title: null, sort: 'descending' } },
    spec: {
      width: 300,
      height: { step: 12 },
      layer: [
        {
          mark: { type: 'rule', strokeDash: [4, 4], color: '#888' },
          encoding: { x: { datum: 0.5, ...x } },
        },
        {
          mark: { type: 'rule', color: 'firebrick' },
          encoding: { x: { datum: bound, ...x } },
        },
        {
          mark: { type: 'rule', tooltip: true },
          encoding: {
            y: { field: 'heuristic', type: 'nominal', sort: null, title: null },
            yOffset: { field: 'pairs', type: 'nominal' },
            x: { field: 'low', ...x },
            x2: { field: 'high' },
            color: { field: 'pairs', type: 'nominal', legend: { orient: 'top', title: null } },
          },
        },
        {
          mark: { type: 'point', filled: true, tooltip: true },
          encoding: {
            y: { field: 'heuristic', type: 'nominal', sort: null, title: null },
            yOffset: { field: 'pairs', type: 'nominal' },
            x: { field: 'auc', ...x },
            color: { field: 'pairs', type: 'nominal' },
          },
        },
      ],
    },
  } as TopLevelSpec;
}

/** The chart of each bench, by results name. */
/** Transition proofs (merge, split, exit) beside spend proofs: prove and verify, per backend. */
function transitionChart(json: Fields): TopLevelSpec {
  const prove = fields(json.prove, 'prove');
  const verify = fields(json.verify, 'verify');
  // Results since set 17 also verify the golden set-16 proof in the same rounds.
  const set16 =
    verify.transitionSet16Golden === undefined
      ? []
      : [
          [
            'verify (transition set 16, same rounds)',
            fields(verify.transitionSet16Golden, 'verify.transitionSet16Golden'),
            'verify.transitionSet16Golden',
          ],
        ];
  const rows = [
    ['prove (transition)', prove, 'prove'],
    ['verify (transition)', fields(verify.transition, 'verify.transition'), 'verify.transition'],
    ...set16,
    ['verify (spend, same rounds)', fields(verify.spend, 'verify.spend'), 'verify.spend'],
  ].flatMap(([operation, f, path]) => [
    {
      operation,
      backend: 'native',
      ...timing((f as Fields).native, `${path as string}.native`, 'Ms'),
    },
    {
      operation,
      backend: 'WebAssembly',
      ...timing((f as Fields).wasm, `${path as string}.wasm`, 'Ms'),
    },
  ]);
  return operationsByBackend(
    'Transition proofs: native vs WebAssembly (ms)',
    json,
    rows,
    520,
    'ms',
  );
}

/** Two builds side by side: the change of each figure's median, worse to the left. */
function buildsChart(json: Fields): TopLevelSpec {
  const commits = fields(json.commits, 'commits');
  const tolerance = num(json.tolerance, 'tolerance');
  const rows = list(json.comparison, 'comparison').map((value, i) => {
    const c = fields(value, `comparison[${i}]`);
    const better = text(c.better, `comparison[${i}].better`);
    const change = num(c.change, `comparison[${i}].change`);
    return {
      figure: `${text(c.name, `comparison[${i}].name`)} (${text(c.unit, `comparison[${i}].unit`)})`,
      // Signed so that better is always to the right.
      gain: Number((100 * (better === 'higher' ? change : -change)).toFixed(2)),
      verdict: c.regressed === true ? 'worse than the tolerance' : 'within',
    };
  });
  return {
    ...frame(
      `Two builds: this ${text(commits.this, 'commits.this')} against ${text(commits.base, 'commits.base')} (median over the rounds)`,
      json,
    ),
    width: 420,
    height: { step: 16 },
    layer: [
      {
        data: { values: rows },
        mark: { type: 'bar', tooltip: true },
        encoding: {
          y: {
            field: 'figure',
            type: 'nominal',
            sort: null,
            title: null,
            axis: { labelLimit: 420 },
          },
          x: {
            field: 'gain',
            type: 'quantitative',
            title: `change of the median, % (better to the right; tolerance ${100 * tolerance} %)`,
          },
          color: {
            field: 'verdict',
            type: 'nominal',
            scale: {
              domain: ['within', 'worse than the tolerance'],
              range: ['#4c78a8', '#e45756'],
            },
            legend: { orient: 'top', title: null, labelLimit: 300 },
          },
        },
      },
      {
        data: { values: [{ x: -100 * tolerance }] },
        mark: { type: 'rule', strokeDash: [4, 4], color: '#e45756' },
        encoding: { x: { field: 'x', type: 'quantitative' } },
      },
    ],
  };
}

/**
 * Gas: each escrow operation's cost on Base in USD, stacked L2 execution and L1 data, labelled
 * with its L2 gas; what is paid once (the deployment) is in the title, not among the bars; the
 * prices the bench states are on the axis.
 */
function gasChart(json: Fields): TopLevelSpec {
  const prices = fields(json.prices, 'prices');
  const parts: Fields[] = [];
  const totals: Fields[] = [];
  const once: string[] = [];
  for (const [i, value] of list(json.operations, 'operations').entries()) {
    const o = fields(value, `operations[${i}]`);
    const operation = text(o.name, `operations[${i}].name`);
    const gas = Math.round(num(o.gasUsed, `operations[${i}].gasUsed`));
    const l2 = num(o.l2FeeUsd, `operations[${i}].l2FeeUsd`);
    const l1 = num(o.l1FeeUsd, `operations[${i}].l1FeeUsd`);
    if (o.once === true) {
      once.push(`${operation} ${gas.toLocaleString('en-US')} gas, $${(l1 + l2).toFixed(3)}`);
      continue;
    }
    parts.push({ operation, part: 'L2 execution', usd: l2 });
    parts.push({ operation, part: 'L1 data (upper bound)', usd: l1 });
    totals.push({ operation, usd: l1 + l2, gas });
  }
  const gwei = (key: string) => Number(text(prices[key], `prices.${key}`)) / 1e9;
  const y = {
    field: 'operation',
    type: 'nominal' as const,
    sort: null,
    title: null,
    axis: { labelLimit: 320 },
  };
  const x = { field: 'usd', type: 'quantitative' as const };
  return {
    ...frame(
      `Gas of the escrow on Base, per use (a payment: none, it is off chain); ${once.join('; ')}`,
      json,
    ),
    width: 420,
    height: { step: 18 },
    layer: [
      {
        data: { values: parts },
        mark: { type: 'bar', tooltip: true },
        encoding: {
          y,
          x: {
            ...x,
            stack: 'zero',
            title: `USD at L2 ${gwei('l2GasPriceWei')} gwei, L1 ${gwei('l1BaseFeeWei')} gwei, blob ${gwei('l1BlobBaseFeeWei')} gwei, ETH ${num(prices.ethUsd, 'prices.ethUsd')} USD (label: L2 gas)`,
          },
          color: {
            field: 'part',
            type: 'nominal',
            scale: {
              domain: ['L2 execution', 'L1 data (upper bound)'],
              range: ['#4c78a8', '#f58518'],
            },
            legend: { orient: 'top', title: null, labelLimit: 300 },
          },
        },
      },
      {
        data: { values: totals },
        mark: { type: 'text', align: 'left', dx: 4, fontSize: 10 },
        encoding: { y, x, text: { field: 'gas', type: 'quantitative', format: ',d' } },
      },
    ],
  };
}

/** The archive's bytes per settlement by store and path: the proof, and what the store adds. */
function archiveChart(json: Fields): TopLevelSpec {
  const parts: Fields[] = [];
  for (const [i, value] of list(json.results, 'results').entries()) {
    const r = fields(value, `results[${i}]`);
    const row = `${text(r.store, `results[${i}].store`)}, ${text(r.path, `results[${i}].path`)}`;
    const proof = num(r.proofBytes, `results[${i}].proofBytes`);
    const archive = num(r.archiveBytesPerSettlement, `results[${i}].archiveBytesPerSettlement`);
    const total = num(r.bytesPerSettlement, `results[${i}].bytesPerSettlement`);
    parts.push({ row, part: 'the proof', bytes: proof });
    parts.push({
      row,
      part: 'its archive row (digests, pages)',
      bytes: Math.max(0, archive - proof),
    });
    parts.push({ row, part: 'the rest of the store', bytes: Math.max(0, total - archive) });
  }
  return {
    ...frame('The proof archive: store bytes per settlement, its proof kept', json),
    width: 420,
    height: { step: 22 },
    data: { values: parts },
    mark: { type: 'bar', tooltip: true },
    encoding: {
      y: { field: 'row', type: 'nominal', sort: null, title: null },
      x: { field: 'bytes', type: 'quantitative', stack: 'zero', title: 'bytes per settlement' },
      color: { field: 'part', type: 'nominal', title: null },
    },
  };
}

/** The polynomial commitment alone: opening-proof bytes per candidate, FRI's bar marked. */
function pcsChart(json: Fields): TopLevelSpec {
  const rows: Fields[] = [];
  for (const [i, value] of list(json.candidates, 'candidates').entries()) {
    const c = fields(value, `candidates[${i}]`);
    if (c.derivable !== true) continue;
    const candidate = text(c.candidate, `candidates[${i}].candidate`);
    rows.push({
      statement: text(c.statement, `candidates[${i}].statement`),
      candidate,
      scheme: candidate.startsWith('FRI')
        ? 'FRI (proof v3)'
        : candidate.startsWith('WHIR')
          ? 'WHIR, 100 bits'
          : 'STIR, 100 bits',
      bytes: num(fields(c.bytes, `candidates[${i}].bytes`).mean, `candidates[${i}].bytes.mean`),
    });
  }
  if (rows.length === 0) throw new ChartInputError('candidates: expected at least one measured');
  return {
    ...frame('The polynomial commitment alone: opening-proof bytes (mean)', json),
    data: { values: rows },
    facet: { column: { field: 'statement', type: 'nominal', title: null } },
    spec: {
      width: 300,
      height: { step: 11 },
      mark: { type: 'bar', tooltip: true },
      encoding: {
        y: {
          field: 'candidate',
          type: 'nominal',
          sort: 'x',
          title: null,
          axis: { labelLimit: 320 },
        },
        x: { field: 'bytes', type: 'quantitative', title: 'bytes' },
        color: { field: 'scheme', type: 'nominal', legend: { title: null, orient: 'top' } },
      },
    },
  } as TopLevelSpec;
}

export const CHARTS: Readonly<Record<string, (json: Fields) => TopLevelSpec>> = {
  proof: proofChart,
  core: coreChart,
  pool: poolChart,
  client: clientChart,
  http: httpChart,
  flow: flowChart,
  scale: scaleChart,
  levers: leversChart,
  tracing: tracingChart,
  // The A/A control of the same bench (both processes untraced).
  'tracing-control': tracingChart,
  runtimes: runtimesChart,
  recovery: recoveryChart,
  'ready-notes': readyNotesChart,
  transition: transitionChart,
  pcs: pcsChart,
  builds: buildsChart,
  // The same bench, main's tree in the place of the restructure's last commit (BENCH_THIS unset).
  'builds-main': buildsChart,
  // The routes alone (BENCH_FLOW_ONLY=…:routes, BENCH_RESULTS_AS=builds-routes), more rounds.
  'builds-routes': buildsChart,
  gas: gasChart,
  linkage: linkageChart,
  archive: archiveChart,
  audit: auditChart,
};

/** The Vega-Lite spec of bench `name`'s chart from its results JSON; refuses a malformed one. */
export function chartSpec(name: string, json: unknown): TopLevelSpec {
  const chart = CHARTS[name];
  if (!chart) throw new ChartInputError(`no chart for bench ${JSON.stringify(name)}`);
  return chart(fields(json, name));
}

/** Renders a Vega-Lite spec to an SVG document (Vega's headless renderer, no canvas). */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new View(parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** Bench `name`'s chart as SVG, from its results JSON. */
export async function drawChart(name: string, json: unknown): Promise<string> {
  return renderSvg(chartSpec(name, json));
}

const RESULTS = new URL('./results/', import.meta.url);

/** Writes `bench/results/<name>.svg` from the results JSON (as written to `<name>.json`). */
export async function writeChart(name: string, json: unknown, dir: URL = RESULTS): Promise<URL> {
  const svg = await drawChart(name, JSON.parse(JSON.stringify(json)));
  const out = new URL(`${name}.svg`, dir);
  writeFileSync(out, `${svg}\n`);
  return out;
}

/** Redraws the charts of `names` (default: every results JSON that has a chart) from disk. */
export async function redrawCharts(names?: readonly string[], dir: URL = RESULTS): Promise<URL[]> {
  const available = existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .map((f) => f.slice(0, -'.json'.length))
    : [];
  const chosen = names && names.length > 0 ? names : available.filter((n) => n in CHARTS);
  const written: URL[] = [];
  for (const name of chosen) {
    const file = new URL(`${name}.json`, dir);
    if (!existsSync(file)) throw new ChartInputError(`${fileURLToPath(file)} does not exist`);
    written.push(await writeChart(name, JSON.parse(readFileSync(file, 'utf8')), dir));
  }
  return written;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const url of await redrawCharts(process.argv.slice(2)))
    process.stdout.write(`${fileURLToPath(url)}\n`);
}
