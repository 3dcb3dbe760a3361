// The native addon's build and the Rust tests' build enable the same features in every dependency
// they share, so `npm test` compiles those dependencies once (scripts/rust-features.mjs,
// docs/build.md "Profiles"). A drift would not fail anything else: the tests would only rebuild.

import { describe, expect, it } from 'vitest';

import {
  currentDifferences,
  featureDifferences,
  parseFeatureTree,
} from '../scripts/rust-features.mjs';

describe('the Rust builds share their dependencies', () => {
  it('this checkout: no shared dependency differs in features', () => {
    expect(currentDifferences()).toEqual([]);
  });

  it('a dependency with another feature in the tests is reported, the workspace crates are not', () => {
    const addon = parseFeatureTree(
      [
        'priv-stark-napi v0.1.0 (/w/crates/napi)|default',
        'serde_core v1.0.229|alloc,result',
        'num-traits v0.2.19|i128',
        'p3-field v0.8.0|',
      ].join('\n'),
    );
    const tests = parseFeatureTree(
      [
        'priv-stark-napi v0.1.0 (/w/crates/napi)|default,measure',
        'serde_core v1.0.229|alloc,result (*)',
        'num-traits v0.2.19|i128,std',
        'p3-field v0.8.0| (*)',
        'proptest v1.12.0|default,std',
      ].join('\n'),
    );
    expect(featureDifferences(addon, tests, '/w/crates')).toEqual([
      { name: 'num-traits v0.2.19', addon: 'i128', tests: 'i128,std' },
    ]);
    // Must-pass twin: the same trees with num-traits agreeing report nothing.
    tests.set('num-traits v0.2.19', 'i128');
    expect(featureDifferences(addon, tests, '/w/crates')).toEqual([]);
  });
});
