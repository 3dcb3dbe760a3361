// --transport and --pool-proxy of the CLI's wallet commands, pay and mcp (src/cli/transport-flags.ts):
// flags over the environment, the default, a bad mode refused, and the direct path's warning on the
// error stream only.

import { describe, expect, it } from 'vitest';

import { TRANSPORT_FLAGS, transportOptions } from '../../src/cli/transport-flags.js';
import { walletLocation } from '../../src/cli/wallet.js';

describe('--transport and --pool-proxy', () => {
  it('take the flags over PRIV_STARK_TRANSPORT / PRIV_STARK_POOL_PROXY, default private-first without a proxy', () => {
    const env = {
      PRIV_STARK_TRANSPORT: 'private-only',
      PRIV_STARK_POOL_PROXY: 'socks5h://127.0.0.1:9050',
    };
    expect(transportOptions({}, env)).toMatchObject({
      transport: 'private-only',
      poolProxy: 'socks5h://127.0.0.1:9050',
    });
    expect(
      transportOptions({ transport: 'private-first', 'pool-proxy': 'http://127.0.0.1:3128' }, env),
    ).toMatchObject({ transport: 'private-first', poolProxy: 'http://127.0.0.1:3128' });
    const bare = transportOptions({}, {});
    expect(bare.transport).toBe('private-first');
    expect(bare.poolProxy).toBeUndefined();
    // What pay, mcp and the wallet commands open the wallet with.
    expect(walletLocation({ transport: 'private-only' }, {})).toMatchObject({
      transport: 'private-only',
    });
    expect(Object.keys(TRANSPORT_FLAGS)).toEqual(['transport', 'pool-proxy']);
  });

  it('refuses another mode; says the direct path on the error stream', () => {
    expect(() => transportOptions({ transport: 'direct' }, {})).toThrow(
      /private-first or private-only/,
    );
    const lines: string[] = [];
    transportOptions({}, {}, (line) => lines.push(line)).onTransportWarning({
      code: 'direct_to_pool',
      write: 'hand-over',
      origin: 'https://shop.example',
      message: 'went directly',
    });
    expect(lines).toEqual(['warning: went directly']);
  });
});
