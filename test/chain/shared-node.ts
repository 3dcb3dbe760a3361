// The chain project's global setup (vitest.config.ts): one local node for every suite of
// test/chain/ that never rewrites history, started only when one of them is queued (vitest calls
// a project's global setup only then) and stopped after the last. Its URL reaches the suites
// through `inject('chainRpcUrl')` (test/chain/shared.ts).

import type { TestProject } from 'vitest/node';

import { startLocalNode } from '../../src/chain/local-node.js';

declare module 'vitest' {
  export interface ProvidedContext {
    chainRpcUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const node = await startLocalNode({ accounts: 1 });
  project.provide('chainRpcUrl', node.url);
  return () => node.stop();
}
