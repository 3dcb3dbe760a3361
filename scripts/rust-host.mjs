// The host's target triple as rustc names it (`rustc -vV`), for the cargo runs that must use the
// native addon's explicit `--target` (build.mjs, test.mjs, rust-features.mjs); `undefined` when
// rustc does not answer. Node built-ins only.

import { spawnSync } from 'node:child_process';

export function hostTriple() {
  return /^host: (\S+)$/m.exec(spawnSync('rustc', ['-vV'], { encoding: 'utf8' }).stdout ?? '')?.[1];
}
