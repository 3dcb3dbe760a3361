// Gas of the escrow's operations (contracts/src/PrivStarkEscrow.sol) on a local anvil node (Cancun,
// the contracts' evmVersion): each deposit path, accepting in batches of several sizes (per
// deposit), both reclaims, payouts, and the deployment — measured from the receipts of real
// transactions (gas is deterministic: the samples differ only where storage differs, e.g. a
// first payout of the hour writes a new bucket). Each figure is priced for Base as an OP Stack
// chain prices it: L2 execution gas × a stated L2 gas price, plus the L1 data fee of the
// transaction's size by the GasPriceOracle's Fjord upper bound at stated L1 fees and Base's fee
// scalars. The prices are stated, with their sources, not measured: both components are in the
// results so they can be rescaled (each is linear in its price). Payments themselves are off
// chain (a proof the facilitator verifies, settled in the pool's ledger): they cost no gas.
//
// Run: npm run bench:gas (or npx tsx bench/gas.bench.ts) → bench/results/gas.{json,md,svg}.

import {
  type Address,
  type Hex,
  parseEventLogs,
  serializeTransaction,
  type TransactionReceipt,
} from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';

import { privStarkEscrowAbi, testUsdcAbi } from '../src/chain/contract-artifacts.js';
import { startLocalNode } from '../src/chain/local-node.js';
import { type UnpaidWithdrawal, unpaidProof, unpaidRoot } from '../src/chain/unpaid-withdrawals.js';
import { randomDigest } from '../src/core/witness.js';
import {
  type Call,
  connect,
  deployEscrow,
  deployTestUsdc,
  depositNonce,
  newAccount,
  now,
  send,
  signAuthorization,
  signReclaim,
  vrs,
} from '../testkit/chain.js';
import { environment, writeResults } from './report.js';

const SAMPLES = Number(process.env.GAS_BENCH_SAMPLES ?? 12);
const BATCH_SIZES = [1, 10, 50];
const log = (text: string) => process.stderr.write(`[bench:gas] ${text}\n`);

/** The prices every figure is computed at: stated, with where each comes from. */
const PRICES = {
  l2GasPriceWei: 5_000_000n,
  l2GasPriceSource:
    "Base Mainnet's minimum base fee, 0.005 gwei (docs.base.org, Network Fees: Minimum Base Fee, Jovian); fees sit at or near it outside congestion, and a priority fee adds to it",
  l1BaseFeeWei: 1_000_000_000n,
  l1BlobBaseFeeWei: 1_000_000_000n,
  l1FeesSource:
    'stated: Ethereum base fee 1 gwei and blob base fee 1 gwei (the blob fee is often far lower; the L1 fee is linear in both, so scale the l1 figure)',
  baseFeeScalar: 2_269n,
  blobBaseFeeScalar: 1_055_762n,
  scalarsSource:
    "Base Mainnet's Ecotone fee scalars as its receipts report them (l1BaseFeeScalar 0x8dd, l1BlobBaseFeeScalar 0x101c12); governance sets them: read GasPriceOracle.baseFeeScalar() and blobBaseFeeScalar() at 0x420000000000000000000000000000000000000F for today's",
  l1FeeFormula:
    'GasPriceOracle.getL1FeeUpperBound (Fjord, docs.base.org specs/upgrades/fjord/predeploys): txSize = unsigned size + 68; estimatedSize = max(100e6, -42_585_600 + 836_500 × (txSize + txSize/255 + 16)); fee = estimatedSize × (16 × baseFeeScalar × l1BaseFee + blobBaseFeeScalar × blobBaseFee) / 1e12',
  ethUsd: 3_000,
  ethUsdSource: 'stated: 1 ETH = 3,000 USD',
} as const;

/** The L1 data fee (wei) of a transaction whose unsigned serialization has `unsignedBytes`. */
function l1FeeUpperBound(unsignedBytes: number): bigint {
  const txSize = BigInt(unsignedBytes) + 68n;
  const flzUpperBound = txSize + txSize / 255n + 16n;
  let estimatedSize = -42_585_600n + 836_500n * flzUpperBound;
  if (estimatedSize < 100_000_000n) estimatedSize = 100_000_000n;
  const feeScaled =
    16n * PRICES.baseFeeScalar * PRICES.l1BaseFeeWei +
    PRICES.blobBaseFeeScalar * PRICES.l1BlobBaseFeeWei;
  return (estimatedSize * feeScaled) / 1_000_000_000_000n;
}

/** One measured operation: its median gas and the size of its transaction. */
interface Measured {
  readonly name: string;
  readonly gas: number[];
  /** Items the transaction carries (deposits in an accept batch): gas and fees are per item. */
  readonly perItem: number;
  readonly calldataBytes: number;
  readonly unsignedTxBytes: number;
}

const node = await startLocalNode({ accounts: 1 });
const chain = connect(node.url);
const measured: Measured[] = [];

/** The gas and size of the transaction behind `receipt`, as Base would carry it. */
async function sample(
  receipt: TransactionReceipt,
): Promise<{ gas: number; calldata: number; unsigned: number }> {
  const tx = await chain.public.getTransaction({ hash: receipt.transactionHash });
  const unsigned = serializeTransaction({
    type: 'eip1559',
    chainId: 8453,
    nonce: tx.nonce,
    gas: tx.gas,
    maxFeePerGas: 10_000_000n,
    maxPriorityFeePerGas: 1_000_000n,
    ...(tx.to ? { to: tx.to } : {}),
    data: tx.input,
  });
  return {
    gas: Number(receipt.gasUsed),
    calldata: (tx.input.length - 2) / 2,
    unsigned: (unsigned.length - 2) / 2,
  };
}

/** Records `receipts` under `name` (the median is what is reported). */
async function record(name: string, receipts: TransactionReceipt[], perItem = 1) {
  const samples = await Promise.all(receipts.map(sample));
  measured.push({
    name,
    gas: samples.map((s) => s.gas / perItem),
    perItem,
    calldataBytes: samples[0]!.calldata,
    unsignedTxBytes: samples[0]!.unsigned,
  });
  log(`${name}: ${median(samples.map((s) => s.gas / perItem))} gas`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

// --- the contracts ---------------------------------------------------------------------------

const admin = await newAccount(chain, '1000');
const acceptor = await newAccount(chain);
const payer = await newAccount(chain);
const relayer = await newAccount(chain);
const token = await deployTestUsdc(chain, admin);
const escrow = await deployEscrow(chain, admin, token, {
  adminDelay: 86_400,
  reclaimDelay: 86_400n,
  minDeposit: 1_000_000n,
  payoutCapPerDay: 10n ** 15n,
});
const deployments = await chain.public.getContractEvents({
  address: escrow,
  abi: privStarkEscrowAbi,
  eventName: 'ParameterChanged',
  fromBlock: 0n,
});
const deployReceipt = await chain.public.getTransactionReceipt({
  hash: deployments[0]!.transactionHash,
});
await record('escrow deployment (once)', [deployReceipt]);

const escrowCall = (as: PrivateKeyAccount, functionName: string, args: readonly unknown[]) =>
  send(chain, as, { address: escrow, abi: privStarkEscrowAbi, functionName, args } satisfies Call);
const tokenCall = (as: PrivateKeyAccount, functionName: string, args: readonly unknown[]) =>
  send(chain, as, { address: token, abi: testUsdcAbi, functionName, args } satisfies Call);
for (const [role, holder] of [
  ['ACCEPTOR_ROLE', acceptor],
  ['PAYOUT_ROLE', payer],
] as const) {
  const id = await chain.public.readContract({
    address: escrow,
    abi: privStarkEscrowAbi,
    functionName: role,
  });
  await escrowCall(admin, 'grantRole', [id, holder.address]);
}

/** A depositor holding 1,000 USDC. */
async function depositor(): Promise<PrivateKeyAccount> {
  const account = await newAccount(chain);
  await tokenCall(admin, 'mint', [account.address, 1_000_000_000n]);
  return account;
}

const depositIndex = (receipt: TransactionReceipt): bigint =>
  parseEventLogs({ abi: privStarkEscrowAbi, logs: receipt.logs, eventName: 'Deposited' })[0]!.args
    .index;

/** The arguments of a gasless deposit of `amount` (+ `fee`) by `from`, in `form`. */
async function gasless(
  from: PrivateKeyAccount,
  amount: bigint,
  fee: bigint,
  form: 'bytes' | 'vrs',
) {
  const pre = randomDigest();
  const t = await now(chain);
  const authorization = {
    token,
    from: from.address,
    to: escrow,
    value: amount + fee,
    validAfter: t - 60n,
    validBefore: t + 3_600n,
    nonce: depositNonce(amount, pre),
  };
  const signature = await signAuthorization(chain, from, authorization);
  const head = [
    from.address,
    amount,
    pre,
    amount + fee,
    authorization.validAfter,
    authorization.validBefore,
  ];
  if (form === 'bytes') return [...head, signature];
  const { v, r, s } = vrs(signature);
  return [...head, v, r, s];
}

// --- deposits ----------------------------------------------------------------------------------

const AMOUNT = 10_000_000n; // 10 USDC
const approvals: TransactionReceipt[] = [];
const direct: TransactionReceipt[] = [];
const byBytes: TransactionReceipt[] = [];
const byVrs: TransactionReceipt[] = [];
const pending: { index: bigint; who: PrivateKeyAccount }[] = [];
for (let i = 0; i < SAMPLES; i++) {
  const who = await depositor();
  approvals.push(await tokenCall(who, 'approve', [escrow, AMOUNT]));
  const receipt = await escrowCall(who, 'deposit', [AMOUNT, randomDigest()]);
  direct.push(receipt);
  pending.push({ index: depositIndex(receipt), who });
  const agent = await depositor();
  const a = await escrowCall(
    relayer,
    'depositWithAuthorization',
    await gasless(agent, AMOUNT, 10_000n, 'bytes'),
  );
  byBytes.push(a);
  pending.push({ index: depositIndex(a), who: agent });
  const b = await escrowCall(
    relayer,
    'depositWithAuthorization',
    await gasless(agent, AMOUNT, 10_000n, 'vrs'),
  );
  byVrs.push(b);
  pending.push({ index: depositIndex(b), who: agent });
}
await record('approve (before a direct deposit)', approvals);
await record('deposit (direct)', direct);
await record('deposit by signature (bytes)', byBytes);
await record('deposit by signature (v, r, s)', byVrs);

// --- acceptance in batches -------------------------------------------------------------------------

/** `n` fresh Pending deposits. */
async function fresh(n: number): Promise<{ index: bigint; who: PrivateKeyAccount }[]> {
  const who = await depositor();
  await tokenCall(who, 'approve', [escrow, AMOUNT * BigInt(n)]);
  const out: { index: bigint; who: PrivateKeyAccount }[] = [];
  for (let i = 0; i < n; i++)
    out.push({
      index: depositIndex(await escrowCall(who, 'deposit', [AMOUNT, randomDigest()])),
      who,
    });
  return out;
}

const batches: { size: number; gas: number; perDeposit: number }[] = [];
for (const size of BATCH_SIZES) {
  const receipts: TransactionReceipt[] = [];
  for (let round = 0; round < 3; round++) {
    const list = await fresh(size);
    receipts.push(await escrowCall(acceptor, 'acceptDeposits', [list.map((d) => d.index), []]));
  }
  await record(`accept, batch of ${size} (per deposit)`, receipts, size);
  const gas = median(receipts.map((r) => Number(r.gasUsed)));
  batches.push({ size, gas, perDeposit: gas / size });
}
// Declining costs the same shape; one batch of 10 for the record.
{
  const list = await fresh(10);
  await record(
    'decline, batch of 10 (per deposit)',
    [await escrowCall(acceptor, 'acceptDeposits', [[], list.map((d) => d.index)])],
    10,
  );
}

// --- reclaims ----------------------------------------------------------------------------------

const declined = pending.splice(0, 2 * SAMPLES);
await escrowCall(acceptor, 'acceptDeposits', [[], declined.map((d) => d.index)]);
const reclaims: TransactionReceipt[] = [];
const signedReclaims: TransactionReceipt[] = [];
for (const [i, d] of declined.entries()) {
  if (i % 2 === 0) reclaims.push(await escrowCall(d.who, 'reclaim', [d.index]));
  else {
    const deadline = (await now(chain)) + 3_600n;
    const signature = await signReclaim(chain, d.who, escrow, d.index, deadline);
    signedReclaims.push(
      await escrowCall(relayer, 'reclaimWithSignature', [d.index, deadline, signature]),
    );
  }
}
await record('reclaim (by the depositor)', reclaims);
await record('reclaim by signature (relayed)', signedReclaims);

// --- payouts -----------------------------------------------------------------------------------

await escrowCall(acceptor, 'acceptDeposits', [pending.map((d) => d.index), []]);
// Every payout to an address holding no token yet (as most exits are), so the two kinds differ
// only by the bucket.
const merchants: Address[] = [];
for (let i = 0; i < 2 * SAMPLES; i++) merchants.push((await newAccount(chain)).address);
const firstOfHour: TransactionReceipt[] = [];
const sameHour: TransactionReceipt[] = [];
let hour = ((await now(chain)) / 3_600n + 1n) * 3_600n;
for (let i = 0; i < SAMPLES; i++) {
  // A payout that opens a new hourly bucket, then one that adds to it.
  hour += 3_600n;
  await chain.test.setNextBlockTimestamp({ timestamp: hour + 60n });
  const id = (): Hex => randomDigest();
  firstOfHour.push(
    await escrowCall(payer, 'payout', [id(), merchants[2 * i]!, 1_000_000n, hour + 86_400n]),
  );
  sameHour.push(
    await escrowCall(payer, 'payout', [id(), merchants[2 * i + 1]!, 1_000_000n, hour + 86_400n]),
  );
}
await record('payout (first of its hour)', firstOfHour);
await record('payout (same hour)', sameHour);

// --- attestations ------------------------------------------------------------------------------

const attester = await newAccount(chain);
await escrowCall(admin, 'grantRole', [
  await chain.public.readContract({
    address: escrow,
    abi: privStarkEscrowAbi,
    functionName: 'ATTESTER_ROLE',
  }),
  attester.address,
]);
/** An attestation of checkpoint `seq` with realistic totals (every word non-zero). */
const attestation = (seq: number) => [
  BigInt(seq),
  randomDigest(),
  randomDigest(),
  [10n ** 12n + BigInt(seq), 4n * 10n ** 11n, 3n * 10n ** 11n, 10n ** 9n],
  randomDigest(),
];
await record('attestation (the first)', [await escrowCall(attester, 'attest', attestation(1))]);
const attestations: TransactionReceipt[] = [];
for (let i = 0; i < SAMPLES; i++)
  attestations.push(await escrowCall(attester, 'attest', attestation(60 * (i + 1) + 1)));
await record('attestation (each later one)', attestations);

// --- two-key payouts ---------------------------------------------------------------------------

// The same payouts on an escrow deployed with two-key payouts: each proves its withdrawal in an
// attested unpaid set of TWO_KEY_UNPAID withdrawals (a proof of 10 siblings).
const TWO_KEY_UNPAID = 1_000;
const twoKey = await deployEscrow(chain, admin, token, {
  adminDelay: 86_400,
  reclaimDelay: 86_400n,
  minDeposit: 1_000_000n,
  payoutCapPerDay: 10n ** 15n,
  twoKeyPayouts: true,
});
const twoKeyCall = (as: PrivateKeyAccount, functionName: string, args: readonly unknown[]) =>
  send(chain, as, { address: twoKey, abi: privStarkEscrowAbi, functionName, args } satisfies Call);
for (const [role, holder] of [
  ['ACCEPTOR_ROLE', acceptor],
  ['PAYOUT_ROLE', payer],
  ['ATTESTER_ROLE', attester],
] as const)
  await twoKeyCall(admin, 'grantRole', [
    await chain.public.readContract({
      address: twoKey,
      abi: privStarkEscrowAbi,
      functionName: role,
    }),
    holder.address,
  ]);
const funder = await newAccount(chain);
await tokenCall(admin, 'mint', [funder.address, 2n * BigInt(SAMPLES) * 1_000_000n]);
await tokenCall(funder, 'approve', [twoKey, 2n * BigInt(SAMPLES) * 1_000_000n]);
const twoKeyDeposits: bigint[] = [];
for (let i = 0; i < 2 * SAMPLES; i++) {
  await twoKeyCall(funder, 'deposit', [1_000_000n, randomDigest()]);
  twoKeyDeposits.push(BigInt(i));
}
await twoKeyCall(acceptor, 'acceptDeposits', [twoKeyDeposits, []]);
// Destinations holding no token yet, as for the plain payouts above (the same write costs).
const unpaid: UnpaidWithdrawal[] = Array.from({ length: TWO_KEY_UNPAID }, () => ({
  withdrawalId: randomDigest() as Hex,
  to: `0x${randomDigest().slice(26)}` as Address,
  amount: 1_000_000n,
}));
await twoKeyCall(attester, 'attest', [...attestation(1).slice(0, 4), unpaidRoot(unpaid)]);
const provenFirst: TransactionReceipt[] = [];
const provenSame: TransactionReceipt[] = [];
const proven = (w: UnpaidWithdrawal, deadline: bigint) =>
  twoKeyCall(payer, 'payoutWithProof', [
    w.withdrawalId,
    w.to,
    w.amount,
    deadline,
    unpaidProof(unpaid, w),
  ]);
for (let i = 0; i < SAMPLES; i++) {
  hour += 3_600n;
  await chain.test.setNextBlockTimestamp({ timestamp: hour + 60n });
  provenFirst.push(await proven(unpaid[2 * i]!, hour + 86_400n));
  provenSame.push(await proven(unpaid[2 * i + 1]!, hour + 86_400n));
}
await record('two-key payout, set of 1,000 (first of its hour)', provenFirst);
await record('two-key payout, set of 1,000 (same hour)', provenSame);

await node.stop();

// --- pricing and results ------------------------------------------------------------------------

const ETH = 10n ** 18n;
const usd = (wei: bigint) => (Number(wei) / Number(ETH)) * PRICES.ethUsd;
const operations = measured.map((m) => {
  const gasUsed = median(m.gas);
  const l2FeeWei = BigInt(Math.round(gasUsed)) * PRICES.l2GasPriceWei;
  const l1FeeWei = l1FeeUpperBound(m.unsignedTxBytes) / BigInt(m.perItem);
  return {
    name: m.name,
    gasUsed,
    samples: m.gas.length,
    perTransaction: m.perItem,
    once: m.name.endsWith('(once)'),
    calldataBytes: m.calldataBytes,
    unsignedTxBytes: m.unsignedTxBytes,
    l2FeeWei: l2FeeWei.toString(),
    l1FeeWei: l1FeeWei.toString(),
    l2FeeUsd: Number(usd(l2FeeWei).toPrecision(3)),
    l1FeeUsd: Number(usd(l1FeeWei).toPrecision(3)),
    totalUsd: Number(usd(l2FeeWei + l1FeeWei).toPrecision(3)),
  };
});

const results = {
  bench: 'gas',
  environment: environment(),
  node: 'anvil (@foundry-rs/anvil 1.7.1), hardfork cancun',
  prices: Object.fromEntries(
    Object.entries(PRICES).map(([k, v]) => [k, typeof v === 'bigint' ? v.toString() : v]),
  ),
  perPayment: {
    gas: 0,
    note: 'a payment is a zero-knowledge proof the facilitator verifies and the pool ledger settles off chain: no transaction, no gas; gas is paid only when funds enter (deposit, accept) or leave (payout, reclaim) the pool',
  },
  operations,
  acceptBatches: batches,
  attestationsPerDay: attestationsPerDay(),
};

/**
 * What attesting costs a day at one attestation an hour (the cadence the shielded-x402 proposals
 * give; the pool node's own interval is not built yet: docs/audit.md).
 */
function attestationsPerDay() {
  const later = operations.find((o) => o.name === 'attestation (each later one)')!;
  const perDay = 24;
  return {
    interval: 'hourly (a stated cadence: the pool node sends no attestations yet)',
    perDay,
    gas: Math.round(later.gasUsed) * perDay,
    usd: Number((later.totalUsd * perDay).toPrecision(3)),
  };
}

const fmtUsd = (x: number) => `$${x < 0.01 ? x.toFixed(5) : x.toFixed(4)}`;
const markdown = [
  '## Gas of the escrow on Base (L2 execution + L1 data)',
  '',
  `Measured on anvil (Cancun) from real transactions, median of the samples; priced at an L2 gas price of ${Number(PRICES.l2GasPriceWei) / 1e9} gwei, L1 base fee ${Number(PRICES.l1BaseFeeWei) / 1e9} gwei and blob base fee ${Number(PRICES.l1BlobBaseFeeWei) / 1e9} gwei, 1 ETH = ${PRICES.ethUsd} USD.`,
  '',
  '| operation | gas (L2) | calldata bytes (of the transaction) | L2 execution | L1 data (upper bound) | total |',
  '|---|---:|---:|---:|---:|---:|',
  ...operations.map(
    (o) =>
      `| ${o.name} | ${Math.round(o.gasUsed).toLocaleString('en-US')} | ${o.calldataBytes} | ${fmtUsd(o.l2FeeUsd)} | ${fmtUsd(o.l1FeeUsd)} | ${fmtUsd(o.totalUsd)} |`,
  ),
  '| a payment (off chain) | 0 | 0 | $0 | $0 | $0 |',
  '',
  `Accepting in a batch, gas per deposit: ${batches.map((b) => `${b.size}: ${Math.round(b.perDeposit).toLocaleString('en-US')}`).join(', ')}.`,
  '',
  `Attesting ${results.attestationsPerDay.interval}: ${results.attestationsPerDay.perDay} attestations, ${results.attestationsPerDay.gas.toLocaleString('en-US')} gas, ${fmtUsd(results.attestationsPerDay.usd)} a day.`,
  '',
  'Sources:',
  `- L2 gas price: ${PRICES.l2GasPriceSource}.`,
  `- L1 fees: ${PRICES.l1FeesSource}.`,
  `- Fee scalars: ${PRICES.scalarsSource}.`,
  `- L1 data fee: ${PRICES.l1FeeFormula}.`,
  `- ETH price: ${PRICES.ethUsdSource}.`,
  `- Payments: ${results.perPayment.note}.`,
].join('\n');

await writeResults('gas', results, markdown);
log('wrote bench/results/gas.{json,md,svg}');
