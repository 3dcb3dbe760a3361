// Scratch directories for a test file, removed when the file's tests end (an `afterAll` of the
// file's root suite, registered when this module is first imported by the file): a suite run
// leaves no data directory, config or key file behind in the OS temp directory.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll } from 'vitest';

const made: string[] = [];

afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh directory under the OS temp directory, named `prefix` and a random tail. */
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
