// Runs in the browser (bundled by test/e2e/browser/bundle.ts for test/e2e/browser.test.ts): the
// client as a page loads it — the WebAssembly core, a wallet kept in IndexedDB that syncs from the
// pool node across origins, and the stock @x402/fetch paying the shop's 402 in one call, compactly
// (the proof handed over to the pool node across origins; the header the page sent is reported). The
// operator shields the page's deposit tickets through the shop's POST /fund. Everything the page
// saw is reported back to the test, which checks it against the pool.

import {
  IndexedDbWalletStore,
  loadWasmCore,
  payingFetch,
  settlementOf,
  Wallet,
} from '../../../src/client/index.js';

const config = (globalThis as unknown as { config: { pool: string } }).config;
const plain = (balance: ReturnType<Wallet['balance']>) =>
  Object.fromEntries(Object.entries(balance).map(([k, v]) => [k, v.toString()]));

/** Syncs until `done` holds (a checkpoint must cover what the pool just appended), at most 300 times. */
async function syncUntil(wallet: Wallet, done: () => boolean): Promise<number> {
  for (let attempt = 1; attempt <= 300; attempt++) {
    await wallet.sync();
    if (done()) return attempt;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(
    `the wallet did not reach the expected state: ${JSON.stringify(plain(wallet.balance()))}`,
  );
}

async function run() {
  const core = await loadWasmCore('/priv_stark.wasm');
  const wallet = await Wallet.create({
    core,
    pool: config.pool,
    store: new IndexedDbWalletStore('payer'),
    // The stack's pool runs without an epoch grid; a page has no environment to say so.
    minEpochMs: 1,
  });
  for (const amount of ['100000', '50000']) {
    const ticket = await wallet.depositTicket(amount);
    const funded = await fetch('/fund', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ amount: ticket.amount, pre: ticket.pre }),
    });
    if (!funded.ok) throw new Error(`funding failed: HTTP ${funded.status}`);
  }
  await syncUntil(wallet, () => wallet.balance().spendable === 150_000n);
  const funded = plain(wallet.balance());

  // What the page sends to the shop: the PAYMENT-SIGNATURE headers, as they leave.
  const signatures: string[] = [];
  const shopFetch: typeof fetch = (input, init) => {
    const request = new Request(input, init);
    const header = request.headers.get('PAYMENT-SIGNATURE');
    if (header !== null) signatures.push(header);
    return fetch(request);
  };
  const started = performance.now();
  const response = await payingFetch(wallet, { fetch: shopFetch })('/weather');
  const paidMs = performance.now() - started;
  const body = await response.text();
  const claimed = settlementOf(response);
  const afterPayment = plain(wallet.balance());
  const pendingRecord = wallet
    .payments()
    .map((p) => ({ amount: p.amount, status: p.status, changeValue: p.changeValue }));

  // Only the pool's log resolves the payment: the change note (40000) joins once a checkpoint covers it.
  await syncUntil(
    wallet,
    () =>
      wallet.payments()[0]?.status === 'settled' &&
      wallet.balance().unconfirmed === 0n &&
      wallet.balance().pending === 0n,
  );
  const settled = plain(wallet.balance());
  const settlementId = wallet.payments()[0]?.settlementId;

  // The same wallet, opened again from IndexedDB.
  const reopened = await Wallet.open({
    core,
    pool: config.pool,
    store: new IndexedDbWalletStore('payer'),
    minEpochMs: 1,
  });
  const reopenedBalance = plain(reopened.balance());
  const resync = await reopened.sync();

  return {
    backend: core.backend,
    userAgent: navigator.userAgent,
    address: wallet.address,
    funded,
    status: response.status,
    body,
    claimed,
    paidMs,
    signatures: signatures.map((header) => {
      const payload = JSON.parse(atob(header)).payload as { proof?: string; proofRef?: string };
      return {
        bytes: 'PAYMENT-SIGNATURE: '.length + header.length,
        proofRef: payload.proofRef ?? null,
        inline: payload.proof !== undefined,
      };
    }),
    afterPayment,
    pendingRecord,
    settled,
    settlementId,
    reopened: {
      balance: reopenedBalance,
      leaves: reopened.leafCount,
      sameLeaves: reopened.leafCount === wallet.leafCount,
      resyncLeaves: resync.leaves,
      payments: reopened.payments().map((p) => p.status),
    },
  };
}

(globalThis as unknown as { result: Promise<unknown> }).result = run().catch((error: unknown) => ({
  error:
    error instanceof Error
      ? `${error.name}: ${error.message}\n${error.stack ?? ''}`
      : String(error),
}));
