// `priv-stark start`'s flags and environment: flags win, the service's defaults otherwise, and
// unusable values refused with a usage error.

import { describe, expect, it } from 'vitest';

import { startConfig, UsageError } from '../../src/cli/start.js';

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
});
