// The payout suites' harness: a pool's ledger in a fresh SQLite file (or a given store), its payout
// journal, the escrow and token of the suite alone with custody funded, and the payout sender over
// the chain rail — the parts the service composes, each real. Passes run when the test says.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { type Address, parseEther, parseGwei } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll } from 'vitest';

import { EvmPayoutRail, type EvmPayoutRailOptions } from '../../src/chain/payout-rail.js';
import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import { Ledger, openStore, type PoolStore, type StoreConfig } from '../../src/ledger/index.js';
import { openPayoutJournal } from '../../src/ledger/open-payout-journal.js';
import type { PayoutJournal } from '../../src/ledger/payout-journal.js';
import { PayoutSender, type PayoutSenderOptions } from '../../src/pool-node/payout-sender.js';
import { type Chain, minedFrom } from '../../testkit/chain.js';
import { fundCustody } from '../../testkit/payouts.js';
import { type EscrowFixture, escrowFixture } from './shared.js';

/**
 * The real sender, each pass followed by a wait until what the payout key sent is mined: anvil's
 * automine mines after answering the send, and the next pass must find the block.
 */
class MinedPassSender extends PayoutSender {
  constructor(
    options: PayoutSenderOptions,
    private readonly chain: Chain,
    private readonly payer: Address,
  ) {
    super(options);
  }

  override async pass(): ReturnType<PayoutSender['pass']> {
    const report = await super.pass();
    if (await this.chain.test.getAutomine()) await minedFrom(this.chain, this.payer);
    return report;
  }
}

/** Custody every suite's escrow starts with. */
export const CUSTODY = 50_000_000n;

/** A fresh EIP-55 address nobody holds a key of in the test. */
export function freshAddress(): Address {
  return privateKeyToAccount(generatePrivateKey()).address;
}

/** One payout stack: the contracts, the ledger, the journal, the rail and the sender. */
export interface PayoutStack {
  readonly f: EscrowFixture;
  readonly store: PoolStore;
  readonly config: StoreConfig;
  readonly ledger: Ledger;
  readonly journal: PayoutJournal;
  readonly rail: EvmPayoutRail;
  readonly sender: PayoutSender;
}

/** Registers the hooks of a describe block; `stack()` builds one over `chain()` per test. */
export function payoutHarness(chain: () => Chain) {
  let core: PrivStarkCore | undefined;
  const dirs: string[] = [];
  const closers: (() => Promise<unknown>)[] = [];
  beforeAll(async () => {
    core = await loadCore();
  });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  async function stack(
    rail: Partial<EvmPayoutRailOptions> = {},
    sender: Partial<PayoutSenderOptions> = {},
    contracts?: EscrowFixture,
  ): Promise<PayoutStack> {
    if (!core) throw new Error('the core is not loaded');
    const f = contracts ?? (await escrowFixture(chain()));
    if (!contracts) await fundCustody(chain(), f, CUSTODY);
    const dir = mkdtempSync(join(tmpdir(), 'priv-stark-payout-'));
    dirs.push(dir);
    const config: StoreConfig = { dataDir: dir };
    const store = await openStore(core, config);
    const journal = openPayoutJournal(config);
    closers.push(
      () => store.close(),
      () => journal.close(),
    );
    const ledger = new Ledger({ core, store });
    const evm = new EvmPayoutRail({
      client: chain().public,
      account: f.payer,
      chainId: chain().chainId,
      escrow: f.escrow,
      token: f.token,
      journal,
      finality: { confirmations: 1 },
      maxFeePerGas: parseGwei('100'),
      minGasBalance: parseEther('0.01'),
      ...rail,
    });
    const payouts = new MinedPassSender(
      { ledger, journal, rail: evm, ...sender },
      chain(),
      f.payer.address,
    );
    closers.push(() => payouts.stop());
    return { f, store, config, ledger, journal, rail: evm, sender: payouts };
  }

  return { stack, core: () => core as PrivStarkCore };
}
