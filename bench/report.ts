// Shared by the benches: the machine description and the results files (JSON, markdown table and
// chart) under bench/results/.

import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

import { CHARTS, writeChart } from './charts.js';

/** One measured operation on both backends. */
export interface Row {
  readonly name: string;
  readonly native: { readonly medianUs: number; readonly p99Us: number; readonly samples: number };
  readonly wasm: { readonly medianUs: number; readonly p99Us: number; readonly samples: number };
  readonly wasmOverNative: number;
}

/** Where and when a bench ran. */
export function environment(): Record<string, string | number> {
  return {
    date: new Date().toISOString(),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
  };
}

const fmt = (us: number) => (us >= 100 ? us.toFixed(0) : us.toFixed(2));

/** A markdown table of native vs WASM medians (and p99), with budget verdicts. */
export function formatTable(
  title: string,
  rows: readonly Row[],
  budgets: Record<string, boolean>,
): string {
  const lines = [
    `## ${title}`,
    '',
    '| operation | native median | native p99 | wasm median | wasm p99 | wasm / native |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${fmt(r.native.medianUs)} | ${fmt(r.native.p99Us)} | ${fmt(r.wasm.medianUs)} | ${fmt(r.wasm.p99Us)} | ${r.wasmOverNative.toFixed(2)}× |`,
    ),
    '',
    ...Object.entries(budgets).map(([name, met]) => `- ${met ? 'met' : 'MISSED'}: ${name}`),
  ];
  return lines.join('\n');
}

/**
 * Writes `bench/results/<name>.json` and `<name>.md`, and the chart `<name>.svg` drawn from that
 * JSON (bench/charts.ts; `npm run bench:charts` redraws it later without rerunning the bench).
 */
export async function writeResults(name: string, json: unknown, markdown: string): Promise<void> {
  const dir = new URL('./results/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  writeFileSync(new URL(`${name}.json`, dir), `${JSON.stringify(json, null, 2)}\n`);
  writeFileSync(new URL(`${name}.md`, dir), `${markdown}\n`);
  if (name in CHARTS) await writeChart(name, json, dir);
}
