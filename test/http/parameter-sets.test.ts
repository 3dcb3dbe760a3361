// The service's accepted proof parameter sets (PROOF_PARAMETER_SETS): /health lists what the
// verifier accepts with its security figures, a configured list narrows it, and an id this
// release does not know refuses to start. In a file of its own: the list is the process's core's.

import { describe, expect, it } from 'vitest';

import { SERVICE_DEFAULTS, ServiceConfigError, startService } from '../../src/service/index.js';
import { scratchDir } from '../scratch-dir.js';

const config = () => ({
  ...SERVICE_DEFAULTS,
  port: 0,
  poolNode: false,
  insecureNoAuth: true,
  verifyThreads: 1,
  dataDir: scratchDir('priv-stark-sets-'),
});

async function healthSets(parameterSets: readonly number[] | undefined) {
  const service = await startService({ ...config(), parameterSets }, () => undefined);
  try {
    const body = (await (await fetch(`${service.facilitatorUrl}/health`)).json()) as {
      parameterSets: { id: number; prover: boolean; provenListDecodingBits: number }[];
    };
    return body.parameterSets;
  } finally {
    await service.close();
  }
}

describe('accepted proof parameter sets', () => {
  it('lists the default sets, then only the configured one', async () => {
    expect((await healthSets(undefined)).map((set) => set.id)).toEqual([3, 2]);
    expect(await healthSets([3])).toEqual([
      {
        id: 3,
        prover: true,
        conjecturedBits: 128,
        provenListDecodingBits: 100,
        provenUniqueDecodingBits: 49,
      },
    ]);
  });

  it('refuses to start on a set this release does not know', async () => {
    await expect(
      startService({ ...config(), parameterSets: [9] }, () => undefined),
    ).rejects.toThrow(ServiceConfigError);
    await expect(
      startService({ ...config(), parameterSets: [9] }, () => undefined),
    ).rejects.toThrow(/PROOF_PARAMETER_SETS: parameter set 9/);
  });
});
