#!/usr/bin/env node
// Whether the native addon's build and the workspace's test build enable the same features in the
// dependencies they share. They must, for `npm test`'s Rust tests to reuse the dependencies
// `npm run build` compiled for the addon (Cargo.toml's release profile, crates/napi/Cargo.toml):
// a dependency whose features differ is compiled again, with everything above it. `node
// scripts/rust-features.mjs` prints the differences and exits 1 when there are any.

import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { hostTriple } from './rust-host.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * `package → features` from `cargo tree --prefix none -f '{p}|{f}'` output. A package listed more
 * than once (cargo tree repeats shared ones) keeps one entry: cargo resolves one feature set per
 * package and build.
 */
export function parseFeatureTree(text) {
  const features = new Map();
  for (const raw of text.split('\n')) {
    // cargo tree marks a package shown before with ` (*)` and a proc macro with ` (proc-macro)`.
    const line = raw.replace(/ \((\*|proc-macro)\)/g, '');
    const cut = line.lastIndexOf('|');
    if (cut < 0) continue;
    features.set(line.slice(0, cut).trim(), line.slice(cut + 1).trim());
  }
  return features;
}

/**
 * The shared packages outside the workspace whose features differ: `{ name, addon, tests }`.
 * `workspaceRoot` marks the workspace's own crates, which both builds compile anyway.
 */
export function featureDifferences(addon, tests, workspaceRoot) {
  const differences = [];
  for (const [name, features] of addon) {
    if (name.includes(`(${workspaceRoot}`)) continue;
    const other = tests.get(name);
    if (other !== undefined && other !== features)
      differences.push({ name, addon: features, tests: other });
  }
  return differences;
}

function tree(args) {
  const host = hostTriple();
  const result = spawnSync(
    'cargo',
    ['tree', '--target', host, '--prefix', 'none', '-f', '{p}|{f}', ...args],
    { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  if (result.status !== 0) throw new Error(`cargo tree failed: ${result.stderr}`);
  return parseFeatureTree(result.stdout);
}

/** The differences between this checkout's two builds (see {@link featureDifferences}). */
export function currentDifferences() {
  const addon = tree(['-p', 'priv-stark-napi', '-e', 'normal,build']);
  const tests = tree(['--workspace', '-e', 'normal,build,dev']);
  return featureDifferences(addon, tests, join(root, 'crates'));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const differences = currentDifferences();
  for (const d of differences)
    process.stdout.write(`${d.name}: addon [${d.addon}], tests [${d.tests}]\n`);
  if (differences.length > 0) process.exitCode = 1;
  else process.stdout.write('the addon and the tests share every dependency build\n');
}
