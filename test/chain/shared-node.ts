// The global setup of the projects that use the shared chain node (vitest.config.ts): one local
// node for every suite of test/chain/ that never rewrites history and for the linkage test's
// default run, started when the first such project starts (vitest calls a project's global setup
// only when one of its files is queued) and stopped after the last of them ends — one node per run,
// however many projects share it. Its URL reaches the suites through `inject('chainRpcUrl')`
// (test/chain/shared.ts).

import type { TestProject } from 'vitest/node';

import { type LocalNode, startLocalNode } from '../../src/chain/local-node.js';

declare module 'vitest' {
  export interface ProvidedContext {
    chainRpcUrl: string;
  }
}

let node: Promise<LocalNode> | null = null;
let users = 0;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  users++;
  node ??= startLocalNode({ accounts: 1 });
  project.provide('chainRpcUrl', (await node).url);
  return async () => {
    if (--users > 0 || node === null) return;
    const running = node;
    node = null;
    await (await running).stop();
  };
}
