// The operator's dashboard and alert rules (ops/) against the service: every metric a panel or a
// rule names is one the running service exports (a must-fail twin shows an unknown name is caught),
// and the rules pass promtool's check and its unit tests (ops/prometheus/alerts.test.yml).

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type RunningService, SERVICE_DEFAULTS, startService } from '../../src/service/index.js';
import { NO_EPOCH_GRID } from '../../src/scheme/index.js';

const OPS = fileURLToPath(new URL('../../ops/', import.meta.url));
const PROMTOOL = [process.env.PROMTOOL, '/usr/bin/promtool', '/usr/local/bin/promtool'].find(
  (p): p is string => !!p && existsSync(p),
);
const required = process.env.CI === 'true';
if (!PROMTOOL && !required)
  process.stderr.write(
    'monitoring.test.ts: no promtool (apt-get install prometheus): rule checks skipped\n',
  );

/** Every `priv_stark_*` name a PromQL expression uses. */
function metricNames(expr: string): string[] {
  return [...expr.matchAll(/\bpriv_stark_[a-z0-9_]+\b/g)].map((m) => m[0]);
}

/** The names a Prometheus text exposition declares, histogram and summary series included. */
function exported(text: string): Set<string> {
  const names = new Set<string>();
  for (const match of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const [name, type] = [match[1]!, match[2]!];
    names.add(name);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
    if (type === 'summary') for (const s of ['_sum', '_count']) names.add(name + s);
  }
  return names;
}

const dashboard = JSON.parse(readFileSync(join(OPS, 'grafana/priv-stark.json'), 'utf8')) as {
  panels: { title: string; targets: { expr: string }[] }[];
};
const rules = readFileSync(join(OPS, 'prometheus/alerts.yml'), 'utf8');
const ruleExprs = [...rules.matchAll(/expr: (\|\n((?: {10}.*\n)+)|(.*)\n)/g)].map(
  (m) => m[2] ?? m[3] ?? '',
);

describe('the dashboard and alert rules', () => {
  let dir: string;
  let service: RunningService;
  let names: Set<string>;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'priv-stark-ops-'));
    service = await startService(
      {
        ...SERVICE_DEFAULTS,
        epoch: NO_EPOCH_GRID,
        port: 0,
        poolPort: 0,
        metricsPort: 0,
        dataDir: dir,
        logLevel: 'silent',
        apiKeys: 'ops-test-key-0123456789abcdef',
        operatorToken: 'ops-test-operator-0123456789',
      },
      () => undefined,
    );
    names = exported(await (await fetch(service.metricsUrl!)).text());
  }, 120_000);
  afterAll(async () => {
    await service?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('name only metrics the service exports', () => {
    expect(ruleExprs.length).toBe(5);
    const used = [...dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)), ...ruleExprs];
    const unknown = used.flatMap((expr) => metricNames(expr)).filter((name) => !names.has(name));
    expect(unknown).toEqual([]);
    expect(new Set(used.flatMap(metricNames)).size).toBeGreaterThan(12);
    // Must-fail twin: a name the service does not export is caught.
    expect(metricNames('rate(priv_stark_not_a_metric[5m])').filter((n) => !names.has(n))).toEqual([
      'priv_stark_not_a_metric',
    ]);
  });

  it("counts the pool node's replies by route, status and reason, and shows the verification queue", async () => {
    const refused = await fetch(`${service.poolNodeUrl}/proofs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(refused.status).toBe(400);
    const text = await (await fetch(service.metricsUrl!)).text();
    expect(text).toContain(
      'priv_stark_pool_node_requests_total{route="/proofs",status="400",reason="invalid_request"} 1',
    );
    expect(text).toMatch(/^priv_stark_verify_queue 0$/m);
    expect(text).toMatch(/^priv_stark_verify_threads [1-9]/m);
    expect(text).toMatch(/^priv_stark_pool_up 1$/m);
    expect(text).toMatch(/^priv_stark_proof_store_proofs 0$/m);
  });

  it('exports the durable commits: a deposit is one group of one op, its store time split into lock, work and sync; the twin: before it, none', async () => {
    const read = async () => await (await fetch(service.metricsUrl!)).text();
    const value = (text: string, series: string) =>
      Number(text.match(new RegExp(`^${series.replace(/[{}"]/g, '\\$&')} (\\S+)$`, 'm'))?.[1]);
    const before = await read();
    expect(value(before, 'priv_stark_commit_groups_total')).toBe(0);
    expect(value(before, 'priv_stark_commit_store_commits_total')).toBe(0);
    const deposited = await fetch(`${service.poolNodeUrl}/deposit`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: 'Bearer ops-test-operator-0123456789',
      },
      body: JSON.stringify({ amount: '1000', pre: `0x${'00'.repeat(31)}07` }),
    });
    expect(deposited.status, await deposited.text()).toBeLessThan(300);
    const after = await read();
    expect(value(after, 'priv_stark_commit_groups_total')).toBe(1);
    expect(value(after, 'priv_stark_commit_ops_total')).toBe(1);
    expect(value(after, 'priv_stark_commit_group_size_total{le="1"}')).toBe(1);
    expect(value(after, 'priv_stark_commit_store_commits_total')).toBe(1);
    expect(value(after, 'priv_stark_commit_queue')).toBe(0);
    for (const phase of ['lock', 'work', 'sync']) {
      const seconds = value(after, `priv_stark_commit_store_seconds_total{phase="${phase}"}`);
      expect(seconds, phase).toBeGreaterThanOrEqual(0);
      expect(seconds, phase).toBeLessThan(10);
    }
    // A commit with fsync takes time: the phases are measured, not left at zero.
    expect(
      value(after, 'priv_stark_commit_store_seconds_total{phase="work"}') +
        value(after, 'priv_stark_commit_store_seconds_total{phase="sync"}'),
    ).toBeGreaterThan(0);
    expect(value(after, 'priv_stark_commit_apply_seconds_total')).toBeGreaterThan(0);
  });

  it('cover what operators watch: payments by outcome, latency, queue, pool, checkpoint, proof store', () => {
    const all = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)).join('\n');
    for (const name of [
      'priv_stark_http_requests_total',
      'priv_stark_pool_node_requests_total',
      'priv_stark_verify_duration_seconds_bucket',
      'priv_stark_settle_duration_seconds_bucket',
      'priv_stark_verify_queue',
      'priv_stark_pool_leaves',
      'priv_stark_pool_checkpoint_age_seconds',
      'priv_stark_proof_store_proofs',
      'priv_stark_commit_groups_total',
      'priv_stark_commit_store_seconds_total',
    ])
      expect(all).toContain(name);
    for (const alert of [
      'CheckpointStale',
      'PoolUnavailable',
      'High5xxRate',
      'VerificationQueueSaturated',
    ])
      expect(rules).toContain(`alert: PrivStark${alert}`);
  });

  it.runIf(PROMTOOL !== undefined || required)(
    'pass promtool check rules and its unit tests',
    () => {
      expect(PROMTOOL, 'promtool is required in CI (apt-get install prometheus)').toBeDefined();
      const check = spawnSync(PROMTOOL!, ['check', 'rules', 'alerts.yml'], {
        cwd: join(OPS, 'prometheus'),
        encoding: 'utf8',
      });
      expect(check.status, check.stdout + check.stderr).toBe(0);
      const test = spawnSync(PROMTOOL!, ['test', 'rules', 'alerts.test.yml'], {
        cwd: join(OPS, 'prometheus'),
        encoding: 'utf8',
      });
      expect(test.status, test.stdout + test.stderr).toBe(0);
      expect(test.stdout).toContain('SUCCESS');
    },
  );
});
