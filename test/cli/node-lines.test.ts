// `priv-stark doctor` says when this Node is not a supported line: the package's `engines.node`
// read as its alternatives. Each supported line's pinned version (tools/runtimes) satisfies it;
// the twins: Node 20 and the lines' older minors, and odd lines, do not.

import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { satisfiesEngines } from '../../src/cli/node-lines.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  engines: { node: string };
};
const runtimes = JSON.parse(
  readFileSync(new URL('../../tools/runtimes/package.json', import.meta.url), 'utf8'),
) as { optionalDependencies: Record<string, string> };

describe('engines.node: the supported Node lines', () => {
  it('names 22, 24 and 26, and each version the tests pin satisfies it', () => {
    expect(pkg.engines.node).toBe('^22.20.0 || ^24.12.0 || >=26.0.0');
    const pinned = Object.entries(runtimes.optionalDependencies).map(
      ([name, spec]) => [name, spec.split('@').at(-1)!] as const,
    );
    expect(pinned.map(([name]) => name)).toEqual(['node22', 'node24', 'node26']);
    for (const [, version] of pinned)
      expect(satisfiesEngines(version, pkg.engines.node)).toBe(true);
  });

  it('refuses Node 20, minors older than the dependencies need, and Node 23 and 25', () => {
    for (const version of ['v20.20.2', 'v22.19.0', 'v24.11.1', 'v23.11.0', 'v25.2.0', 'v18.20.0'])
      expect(satisfiesEngines(version, pkg.engines.node), version).toBe(false);
    for (const version of ['v22.20.0', 'v24.12.0', 'v26.0.0', 'v27.1.0'])
      expect(satisfiesEngines(version, pkg.engines.node), version).toBe(true);
  });

  it('claims nothing for a range or version it does not read', () => {
    expect(satisfiesEngines('v22.20.0', '22.x')).toBeNull();
    expect(satisfiesEngines('not a version', '>=22.0.0')).toBeNull();
  });
});
