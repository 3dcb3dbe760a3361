// Runs under Node, Bun or Deno (for test/runtimes/wallet.test.ts): the wallet through the published
// entry points (`priv-stark` for the core, `priv-stark/client` for the wallet), against a pool node
// and a stock x402 merchant the test started in Node. Creates a wallet (a wallet file), asks for a
// deposit ticket, has the devnet operator deposit it, syncs until the deposit is spendable, pays
// the merchant's `GET /weather` with payingFetch; the must-fail twin: an unfunded wallet's payment.
// Prints one JSON line. Arguments: pool URL, operator token, merchant URL, wallet file path.

const root = new URL('../', import.meta.url);
const { loadCore } = await import(new URL('dist/index.js', root).href);
const { PoolNodeClient, Wallet, payingFetch, settlementOf } = await import(
  new URL('dist/client/index.js', root).href
);

const [poolUrl, token, merchantUrl, walletPath] = process.argv.slice(2);
const core = await loadCore();
const wallet = await Wallet.create({ core, pool: poolUrl, path: walletPath });
const ticket = await wallet.depositTicket('50000');
const operator = new PoolNodeClient(poolUrl, { token });
await operator.deposit(ticket.amount, ticket.pre);
let synced = 0;
for (let i = 0; i < 400 && wallet.balance().spendable === 0n; i++) {
  await wallet.sync();
  synced++;
  if (wallet.balance().spendable === 0n) await new Promise((r) => setTimeout(r, 50));
}
const show = (balance) =>
  Object.fromEntries(Object.entries(balance).map(([k, v]) => [k, String(v)]));
const before = show(wallet.balance());
const response = await payingFetch(wallet)(`${merchantUrl}/weather`);
const body = await response.json().catch(() => null);
const settlement = settlementOf(response);
const after = show(wallet.balance());
const reopened = await Wallet.open({ core, pool: poolUrl, path: walletPath });

const unfunded = await Wallet.create({ core, pool: poolUrl });
await unfunded.sync();
const refused = await payingFetch(unfunded)(`${merchantUrl}/weather`).then(
  (r) => ({ status: r.status }),
  (error) => ({
    error: error?.name ?? 'thrown',
    message: String(error?.message ?? error).slice(0, 300),
  }),
);

console.log(
  JSON.stringify({
    backend: core.backend,
    syncs: synced,
    before,
    status: response.status,
    body,
    settlement: settlement && { success: settlement.success, network: settlement.network },
    after,
    reopenedPayments: reopened.payments().length,
    refused,
  }),
);
process.exit(0);
