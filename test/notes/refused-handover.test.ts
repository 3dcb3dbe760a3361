// A hand-over the pool node refuses (a 4xx) still showed the payment's nullifier to the operator,
// from the address it came from (issue 25, part 5, docs/privacy.md "Notes"). With real parts on
// loopback — the service, a stock @x402/express merchant without a relay (so hand-overs go
// directly), wallets paying through the stock @x402/fetch — and the pool node's per-client write
// limit at one request, a wallet's second hand-over is refused 429: its record is closed as shown,
// the note pays nothing until refreshed (note_needs_refresh), and the refresh spends it privately
// into a note with a fresh nullifier that pays. The must-fail twin, `notes.spendShown`: the same
// refusal leaves the note spendable and the next payment shows the same nullifier again.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { payingFetch, Wallet } from '../../src/client/index.js';
import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import { expressMerchant, type Merchant, type Stack, startStack } from '../../testkit/stack.js';

describe('a refused hand-over showed its nullifier: refresh before reuse', () => {
  let core: PrivStarkCore;
  let stack: Stack;
  let merchant: Merchant;

  beforeAll(async () => {
    core = await loadCore();
    // One write a route per client per ten minutes: every wallet of this file shares 127.0.0.1.
    stack = await startStack(core, { handOverRateLimit: { max: 1, timeWindowMs: 600_000 } });
    const merchantWallet = await stack.wallet();
    merchant = await expressMerchant(stack.facilitatorUrl, merchantWallet.address);
  });
  afterAll(async () => {
    await merchant?.close();
    await stack?.close();
  });

  function payer(notes: object, warnings: string[]): Promise<Wallet> {
    return Wallet.create({
      core,
      pool: stack.poolUrl,
      notes: { ...notes, onWarning: (m: string) => warnings.push(m) },
      onTransportWarning: () => undefined,
    });
  }

  const pay = (wallet: Wallet) => payingFetch(wallet)(`${merchant.url}/weather`);

  it('closes the refused payment as shown; the note waits for its refresh, which pays with a fresh nullifier', async () => {
    const warnings: string[] = [];
    const wallet = await payer({}, warnings);
    await stack.fund(wallet, '1000000');
    // The client's one hand-over of the window: paid.
    const first = await pay(wallet);
    expect(first.status).toBe(200);
    await stack.settle(wallet);
    const change = wallet.notes().find((n) => !n.spent)!;
    // The second is refused 429 after the body left the wallet.
    await expect(pay(wallet)).rejects.toThrow();
    const refused = wallet.payments().at(-1)!;
    expect(refused.status).toBe('expired');
    expect(refused.note).toBe(change.commitment);
    expect(refused.nullifier).toBe(change.nullifier);
    // note_needs_refresh, its message as the stock client wraps it.
    await expect(pay(wallet)).rejects.toThrow(/showed their nullifier .* refreshes them/);
    expect(wallet.payments()).toHaveLength(2);
    // The refresh: a private transition (its own route's one write of the window).
    const [receipt] = await wallet.refreshShownNotes();
    expect(receipt).toBeDefined();
    await stack.settle(wallet);
    const fresh = wallet.notes().filter((n) => !n.spent);
    expect(fresh).toHaveLength(1);
    expect(fresh[0]!.value).toBe(change.value);
    expect(fresh[0]!.nullifier).not.toBe(change.nullifier);
    expect(warnings).toEqual([]);
  });

  it('the twin, spendShown: the refused note stays spendable and the next payment shows its nullifier again, with one warning', async () => {
    const warnings: string[] = [];
    const wallet = await payer({ spendShown: true }, warnings);
    await stack.fund(wallet, '1000000');
    const note = wallet.notes().find((n) => !n.spent)!;
    // The window's one hand-over went to the first test: refused.
    await expect(pay(wallet)).rejects.toThrow();
    expect(wallet.payments().at(-1)!.status).toBe('expired');
    await expect(pay(wallet)).rejects.toThrow();
    const shown = wallet.payments().map((p) => p.nullifier);
    expect(shown).toEqual([note.nullifier, note.nullifier]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/spend-shown/);
  });
});
