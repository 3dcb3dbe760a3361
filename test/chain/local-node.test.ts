import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import {
  ANVIL_PACKAGE,
  anvilBinary,
  LocalNodeError,
  startLocalNode,
} from '../../src/chain/local-node.js';
import { connect } from '../../testkit/chain.js';
import { scratchDir } from '../scratch-dir.js';

describe('startLocalNode', () => {
  it('starts anvil on 127.0.0.1, chain 31337, Cancun, and stops it', async () => {
    const node = await startLocalNode({ accounts: 1 });
    try {
      expect(node.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const chain = connect(node.url);
      expect(await chain.public.getChainId()).toBe(31337);
      const block = await chain.public.getBlock();
      // Cancun's header fields are there (EIP-4844's blob gas), Prague's (EIP-7685) are not.
      expect(block.blobGasUsed).toBeDefined();
      expect(block.parentBeaconBlockRoot).toBeDefined();
      expect((block as { requestsHash?: string }).requestsHash).toBeUndefined();
    } finally {
      await node.stop();
    }
    // Stopped: nothing answers there any more.
    await expect(connect(node.url).public.getChainId()).rejects.toThrow();
  });

  it('two nodes run side by side on their own ports', async () => {
    const [a, b] = await Promise.all([startLocalNode(), startLocalNode({ chainId: 8453 })]);
    try {
      expect(a.port).not.toBe(b.port);
      expect(await connect(b.url).public.getChainId()).toBe(8453);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('finds the binary inside the installed package', () => {
    expect(anvilBinary()).toMatch(/@foundry-rs\/anvil-[a-z0-9-]+\/bin\/anvil(\.exe)?$/);
  });

  it('must-fail twin: without @foundry-rs/anvil, anvil_missing naming the package', () => {
    const elsewhere = join(scratchDir('no-anvil-'), 'index.js');
    let error: unknown;
    try {
      anvilBinary(elsewhere);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(LocalNodeError);
    expect(error).toMatchObject({ code: 'anvil_missing' });
    expect((error as Error).message).toContain(ANVIL_PACKAGE);
  });
});
