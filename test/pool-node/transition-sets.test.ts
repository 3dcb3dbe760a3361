// The pool node's accepted transition parameter sets (TRANSITION_PARAMETER_SETS): its /health
// lists what POST /transitions accepts with the security figures a wallet needs, a configured list
// narrows it, and an id this release does not know as a transition set refuses to start. In a file
// of its own: the list is the process's core's.

import { describe, expect, it } from 'vitest';

import { SERVICE_DEFAULTS, ServiceConfigError, startService } from '../../src/service/index.js';
import { scratchDir } from '../scratch-dir.js';

const config = () => ({
  ...SERVICE_DEFAULTS,
  port: 0,
  poolPort: 0,
  facilitator: false,
  poolNode: true,
  insecureNoAuth: true,
  verifyThreads: 1,
  dataDir: scratchDir('priv-stark-transition-sets-'),
});

async function healthSets(transitionParameterSets: readonly number[] | undefined) {
  const service = await startService({ ...config(), transitionParameterSets }, () => undefined);
  try {
    const body = (await (await fetch(`${service.poolNodeUrl}/health`)).json()) as {
      transitionParameterSets: { id: number; prover: boolean }[];
    };
    return body.transitionParameterSets;
  } finally {
    await service.close();
  }
}

describe('accepted transition parameter sets', () => {
  it('lists the default sets, then only the configured one', async () => {
    const figures = {
      conjecturedBits: 128,
      provenListDecodingBits: 100,
      provenUniqueDecodingBits: 49,
    };
    expect(await healthSets(undefined)).toEqual([
      { id: 17, prover: true, ...figures },
      { id: 16, prover: false, ...figures },
    ]);
    expect(await healthSets([17])).toEqual([{ id: 17, prover: true, ...figures }]);
  });

  it('refuses to start on a set that is not a transition set', async () => {
    for (const ids of [[3], [18]]) {
      await expect(
        startService({ ...config(), transitionParameterSets: ids }, () => undefined),
      ).rejects.toThrow(ServiceConfigError);
    }
    await expect(
      startService({ ...config(), transitionParameterSets: [3] }, () => undefined),
    ).rejects.toThrow(/TRANSITION_PARAMETER_SETS: parameter set 3/);
  });
});
