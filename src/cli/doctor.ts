/**
 * @module `priv-stark doctor`: which backends load, their versions and build profile, and a
 * known-answer self-test on each.
 */

import { readFileSync } from 'node:fs';

import type { Backend } from '../core/binding.js';
import { loadBackend, loadCore } from '../core/load.js';
import { satisfiesEngines } from './node-lines.js';

/** miden-crypto's RPO vector: the permutation of [0, 1, …, 11]. */
const RPO_KAT_OUTPUT = [
  15056646954853821376n,
  594518210294093573n,
  10395398226526937664n,
  3903707756219396109n,
  7670128982698747483n,
  4249514323476682720n,
  16506822133651532340n,
  10593868791806571942n,
  9413309068803954142n,
  15946782832277734471n,
  7904287043744270535n,
  16548919317472389167n,
];

/** What doctor found out about one backend. */
export interface BackendReport {
  readonly loaded: boolean;
  readonly version?: string;
  readonly buildProfile?: string;
  readonly loadMs?: number;
  readonly selfTest?: 'ok' | 'failed';
  readonly error?: string;
}

/** The whole report. */
export interface DoctorReport {
  readonly ok: boolean;
  readonly package: { readonly name: string; readonly version: string };
  readonly node: string;
  /** Whether this Node is a supported line (`engines.node`); `null` when that cannot be read. */
  readonly nodeSupported: boolean | null;
  /** The supported lines, as `engines.node` says them. */
  readonly nodeLines: string | null;
  readonly platform: string;
  readonly selected: Backend | null;
  readonly backends: Record<Backend, BackendReport>;
}

async function probe(backend: Backend): Promise<BackendReport> {
  const started = performance.now();
  try {
    const core = await loadBackend(backend);
    const loadMs = Math.round((performance.now() - started) * 100) / 100;
    const out = core.rpoPermute(Array.from({ length: 12 }, (_, i) => BigInt(i)));
    const selfTest = out.every((x, i) => x === RPO_KAT_OUTPUT[i]) ? 'ok' : 'failed';
    return {
      loaded: true,
      version: core.version,
      buildProfile: core.buildProfile,
      loadMs,
      selfTest,
    };
  } catch (error) {
    return { loaded: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/** Probes both backends and the default selection. */
export async function doctor(): Promise<DoctorReport> {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    name: string;
    version: string;
    engines?: { node?: string };
  };
  const nodeLines = pkg.engines?.node ?? null;
  const backends = { native: await probe('native'), wasm: await probe('wasm') };
  const selected = await loadCore().then(
    (core) => core.backend,
    () => null,
  );
  const healthy = Object.values(backends).every((b) => !b.loaded || b.selfTest === 'ok');
  return {
    ok: selected !== null && healthy,
    package: { name: pkg.name, version: pkg.version },
    node: process.version,
    nodeSupported: nodeLines === null ? null : satisfiesEngines(process.version, nodeLines),
    nodeLines,
    platform: `${process.platform}-${process.arch}`,
    selected,
    backends,
  };
}

/** The report as lines for a terminal. */
export function formatDoctor(report: DoctorReport): string {
  const lines = [
    `${report.package.name} ${report.package.version} on node ${report.node} (${report.platform})`,
  ];
  if (report.nodeSupported === false)
    lines.push(
      `  node   unsupported: this package supports Node ${report.nodeLines}${report.node.startsWith('v20.') ? ' (Node 20 reached end of life on 2026-04-30)' : ''}`,
    );
  for (const [name, b] of Object.entries(report.backends)) {
    lines.push(
      b.loaded
        ? `  ${name.padEnd(6)} loaded  core ${b.version} ${b.buildProfile}, ${b.loadMs} ms, self-test ${b.selfTest}`
        : `  ${name.padEnd(6)} missing ${b.error}`,
    );
  }
  lines.push(
    report.selected
      ? `selected backend: ${report.selected}`
      : 'no backend loads: run `npm run build`',
  );
  return lines.join('\n');
}
