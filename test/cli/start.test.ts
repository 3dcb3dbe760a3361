// `priv-stark start`'s flags and environment: flags win, the service's defaults otherwise, and
// unusable values refused with a usage error.

import { describe, expect, it } from 'vitest';

import { availableParallelism } from 'node:os';

import { startConfig, startPlan, UsageError } from '../../src/cli/start.js';

describe('start configuration', () => {
  it("reads flags over environment, with the profile's defaults", () => {
    const config = startConfig([], {});
    expect(config).toMatchObject({
      port: 4020,
      host: '127.0.0.1',
      poolPort: 4021,
      dataDir: './data',
      poolNode: true,
      checkpointIntervalMs: 2000,
      insecureNoAuth: false,
    });
    expect(config.metricsPort).toBeUndefined();
    const env = {
      PORT: '5000',
      HOST: '0.0.0.0',
      POOL_PORT: '5001',
      DATA_DIR: 'd',
      DATABASE_URL: 'postgres://x',
      API_KEYS: 'k',
      CONFIG: 'c.json',
      METRICS_PORT: '9100',
      CHECKPOINT_INTERVAL_MS: '500',
    };
    expect(startConfig([], env)).toMatchObject({
      port: 5000,
      host: '0.0.0.0',
      poolPort: 5001,
      dataDir: 'd',
      databaseUrl: 'postgres://x',
      apiKeys: 'k',
      configPath: 'c.json',
      metricsPort: 9100,
      checkpointIntervalMs: 500,
    });
    expect(
      startConfig(['--port', '6000', '--no-pool-node', '--insecure-no-auth'], env),
    ).toMatchObject({ port: 6000, poolNode: false, insecureNoAuth: true });
    expect(startConfig([], {}).poolCorsOrigins).toBeUndefined();
    expect(
      startConfig(['--pool-cors', 'https://a.example,https://b.example'], {
        POOL_CORS_ORIGINS: '*',
      }).poolCorsOrigins,
    ).toEqual(['https://a.example', 'https://b.example']);
    expect(startConfig([], { POOL_CORS_ORIGINS: '*' }).poolCorsOrigins).toBe('*');
    for (const argv of [['--port', 'x'], ['--port', '70000'], ['--nope'], ['positional']])
      expect(() => startConfig(argv, {})).toThrow(UsageError);
  });

  it('reads the accepted proof parameter sets: unset is the core default; junk is a usage error', () => {
    expect(startConfig([], {}).parameterSets).toBeUndefined();
    expect(startConfig([], { PROOF_PARAMETER_SETS: '3' }).parameterSets).toEqual([3]);
    expect(
      startConfig(['--parameter-sets', '3, 2'], { PROOF_PARAMETER_SETS: '3' }).parameterSets,
    ).toEqual([3, 2]);
    for (const junk of ['3;2', 'x', '-1', '256', '3,,2', '0x3'])
      expect(() => startConfig([], { PROOF_PARAMETER_SETS: junk })).toThrow(UsageError);
  });

  it('reads the accepted transition parameter sets apart from the spend sets; junk names its variable', () => {
    expect(startConfig([], {}).transitionParameterSets).toBeUndefined();
    expect(
      startConfig([], { TRANSITION_PARAMETER_SETS: '17', PROOF_PARAMETER_SETS: '3' }),
    ).toMatchObject({ transitionParameterSets: [17], parameterSets: [3] });
    expect(
      startConfig(['--transition-parameter-sets', '17, 16'], { TRANSITION_PARAMETER_SETS: '17' })
        .transitionParameterSets,
    ).toEqual([17, 16]);
    for (const junk of ['17;16', 'x', '256'])
      expect(() => startConfig([], { TRANSITION_PARAMETER_SETS: junk })).toThrow(
        /TRANSITION_PARAMETER_SETS expected comma-separated set ids/,
      );
  });

  it('runs one worker per available core by default, at most 16; WORKERS and --workers (flag wins) choose; out of range is a usage error', () => {
    expect(startPlan([], {}).workers).toBe(Math.min(16, Math.max(1, availableParallelism())));
    expect(startPlan([], { WORKERS: '3' }).workers).toBe(3);
    expect(startPlan(['--workers', '2'], { WORKERS: '3' }).workers).toBe(2);
    expect(startPlan(['--workers', '1'], {}).workers).toBe(1);
    for (const argv of [
      ['--workers', '0'],
      ['--workers', '17'],
      ['--workers', 'all'],
    ])
      expect(() => startPlan(argv, {})).toThrow(UsageError);
    // A chain pool's keys are held by one process: one worker unless asked (the service then
    // refuses with the reason).
    const chain = ['--chain-rpc', 'http://127.0.0.1:8545', '--escrow', `0x${'11'.repeat(20)}`];
    expect(startPlan(chain, {}).workers).toBe(1);
    expect(startPlan([...chain, '--workers', '2'], {}).workers).toBe(2);
    // startConfig takes the flag (the service's configuration does not hold it).
    expect(() => startConfig(['--workers', '2'], {})).not.toThrow();
  });
});
