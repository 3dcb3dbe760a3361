// Crash points: a process whose PRIV_STARK_FAILPOINT names the point it reaches dies by SIGKILL
// there (nothing after it runs); one naming another point, or none, goes on.

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

const MODULE = fileURLToPath(new URL('../../src/chain/failpoint.ts', import.meta.url));

function run(env: string | undefined) {
  const script = `import { failpoint } from ${JSON.stringify(MODULE)};
process.stdout.write('before\\n');
failpoint('watcher:after-shield');
process.stdout.write('after\\n');`;
  return spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { ...process.env, PRIV_STARK_FAILPOINT: env ?? '' },
  });
}

describe('failpoint', () => {
  it('kills the process with SIGKILL at the named point', () => {
    const killed = run('payout:after-send, watcher:after-shield');
    expect(killed.signal).toBe('SIGKILL');
    expect(killed.stdout).toBe('before\n');
  });

  it('twin: another point, or none, goes on', () => {
    for (const env of ['watcher:after-accept', undefined]) {
      const passed = run(env);
      expect(passed.status).toBe(0);
      expect(passed.stdout).toBe('before\nafter\n');
    }
  });
});
