// What `npm pack` would publish: the compiled package and the built cores, never the tests, the
// benches or the shared test kit (deterministic keys and fixtures must not ship).

import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

describe('the published package', () => {
  it('holds dist/, the built cores and the manifest only', () => {
    const [report] = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
        cwd: ROOT,
        encoding: 'utf8',
      }),
    ) as [{ files: { path: string }[] }];
    const paths = report.files.map((file) => file.path);
    expect(paths).toContain('package.json');
    for (const path of paths) {
      expect(path, path).toMatch(
        /^(dist\/|build\/(native\/[^/]+\.node|wasm\/[^/]+\.wasm)$|package\.json$|README\.md$|LICENSE)/,
      );
      expect(path, path).not.toMatch(/(^|\/)(testkit|test|bench|fixtures)\//);
    }
  });
});
