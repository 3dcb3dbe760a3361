/**
 * @module What the chain suites and the gas bench share over a real local node: viem clients,
 * throw-away accounts funded by the node, the contracts deployed from the committed artifacts,
 * the signatures a depositor makes (EIP-3009's receive authorization, the escrow's EIP-712
 * reclaim), sending with the receipt awaited, and reading why a call reverted.
 */

import { readFileSync } from 'node:fs';

import {
  type Abi,
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createTestClient,
  createWalletClient,
  decodeErrorResult,
  encodeAbiParameters,
  getAddress,
  type Hex,
  http,
  keccak256,
  parseEther,
  parseSignature,
  type PublicClient,
  type TestClient,
  type TransactionReceipt,
  type WalletClient,
} from 'viem';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';

import {
  privStarkEscrowAbi,
  privStarkEscrowBytecode,
  testUsdcAbi,
  testUsdcBytecode,
} from '../src/chain/contract-artifacts.js';

/** A node and the clients that talk to it. */
export interface Chain {
  readonly url: string;
  readonly chainId: number;
  readonly public: PublicClient;
  readonly test: TestClient<'anvil'>;
}

/**
 * Clients for the node at `url` (chain id 31337), polling every 20 ms (blocks come on demand), no
 * retries, and a minute before a request is given up (a hang guard for a loaded machine, not a
 * timing threshold).
 */
export function connect(url: string): Chain {
  const transport = http(url, { retryCount: 0, timeout: 60_000 });
  return {
    url,
    chainId: foundry.id,
    public: createPublicClient({ chain: foundry, transport, pollingInterval: 20 }),
    test: createTestClient({ mode: 'anvil', chain: foundry, transport, pollingInterval: 20 }),
  };
}

/** A fresh key whose account the node funds with `ether` (its own: suites sharing a node never share a nonce). */
export async function newAccount(chain: Chain, ether = '100'): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  await chain.test.setBalance({ address: account.address, value: parseEther(ether) });
  return account;
}

/** A wallet client sending as `account`. */
export function walletOf(chain: Chain, account: PrivateKeyAccount): WalletClient {
  return createWalletClient({
    account,
    chain: foundry,
    transport: http(chain.url, { retryCount: 0, timeout: 60_000 }),
    pollingInterval: 20,
  });
}

/** One contract call to send. */
export interface Call {
  readonly address: Address;
  readonly abi: Abi;
  readonly functionName: string;
  readonly args?: readonly unknown[];
}

/**
 * Sends `call` as `account` and returns its receipt (the node mines it at once). A call that
 * would revert throws before anything is sent (viem estimates its gas first): {@link revertOf}
 * reads why.
 */
export async function send(
  chain: Chain,
  account: PrivateKeyAccount,
  call: Call,
): Promise<TransactionReceipt> {
  const hash = await walletOf(chain, account).writeContract({
    ...call,
    args: call.args ?? [],
    account,
    chain: foundry,
  } as never);
  const receipt = await receiptOf(chain, hash, call.functionName);
  if (receipt.status !== 'success') throw new Error(`${call.functionName} reverted on chain`);
  return receipt;
}

/**
 * The receipt of `hash`, read until the node has it. Not viem's `waitForTransactionReceipt`: it
 * reads the receipt again only when the block number moves, and anvil can report a block before
 * its receipts are readable — with automine and nothing else sent, no later block comes (seen in
 * the invariant suite under load: mined in the latest block, waited for until the timeout). Gives
 * up after two minutes (a hang guard, not a timing threshold) saying what the node holds of it.
 */
async function receiptOf(chain: Chain, hash: Hex, what: string): Promise<TransactionReceipt> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const receipt = await chain.public.getTransactionReceipt({ hash }).catch(() => null);
    if (receipt) return receipt;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const tx = await chain.public.getTransaction({ hash }).catch(() => null);
  const block = await chain.public.getBlock().catch(() => null);
  throw new Error(
    `${what} ${hash} has no receipt after two minutes: the node holds ${tx ? `nonce ${tx.nonce}, maxFeePerGas ${tx.maxFeePerGas}, block ${tx.blockNumber}` : 'no such transaction'}; latest block ${block?.number} base fee ${block?.baseFeePerGas}`,
  );
}

/** Deploys `bytecode` with `args` as `account`; returns the contract's address (EIP-55). */
export async function deploy(
  chain: Chain,
  account: PrivateKeyAccount,
  contract: { readonly abi: Abi; readonly bytecode: Hex; readonly args?: readonly unknown[] },
): Promise<Address> {
  const hash = await walletOf(chain, account).deployContract({
    abi: contract.abi,
    bytecode: contract.bytecode,
    args: contract.args ?? [],
    account,
    chain: foundry,
  } as never);
  const receipt = await receiptOf(chain, hash, 'deployment');
  if (receipt.status !== 'success' || !receipt.contractAddress)
    throw new Error('deployment reverted');
  return getAddress(receipt.contractAddress);
}

/** A test-only contract's ABI and bytecode, from contracts/artifacts/ (never shipped in src/). */
export function testArtifact(name: 'HostileToken' | 'TestSmartAccount'): {
  abi: Abi;
  bytecode: Hex;
} {
  const path = new URL(`../contracts/artifacts/${name}.json`, import.meta.url);
  const artifact = JSON.parse(readFileSync(path, 'utf8')) as { abi: Abi; bytecode: Hex };
  return { abi: artifact.abi, bytecode: artifact.bytecode };
}

/** Base's USDC EIP-712 domain name and version (FiatTokenV2_2). */
export const USDC_DOMAIN = { name: 'USD Coin', version: '2' } as const;

/** Deploys the test token, owned by `owner`, with Base's EIP-712 name and version. */
export function deployTestUsdc(chain: Chain, owner: PrivateKeyAccount): Promise<Address> {
  return deploy(chain, owner, {
    abi: testUsdcAbi,
    bytecode: testUsdcBytecode,
    args: [USDC_DOMAIN.name, 'USDC', USDC_DOMAIN.version, owner.address],
  });
}

/** The escrow's constructor arguments beside its token and admin. */
export interface EscrowParameters {
  readonly adminDelay: number;
  readonly reclaimDelay: bigint;
  readonly minDeposit: bigint;
  readonly payoutCapPerDay: bigint;
  /** Payouts need a proof under the latest attestation (default off). */
  readonly twoKeyPayouts?: boolean;
}

/** Parameters for tests: no admin delay to wait, a day's reclaim delay, 1 µUSDC minimum. */
export const TEST_ESCROW_PARAMETERS: EscrowParameters = {
  adminDelay: 0,
  reclaimDelay: 86_400n,
  minDeposit: 1n,
  payoutCapPerDay: 1_000_000_000_000n,
};

/** Deploys the escrow for `token`, `admin` its default admin (and deployer). */
export function deployEscrow(
  chain: Chain,
  admin: PrivateKeyAccount,
  token: Address,
  parameters: EscrowParameters = TEST_ESCROW_PARAMETERS,
): Promise<Address> {
  return deploy(chain, admin, {
    abi: privStarkEscrowAbi,
    bytecode: privStarkEscrowBytecode,
    args: [
      token,
      admin.address,
      parameters.adminDelay,
      parameters.reclaimDelay,
      parameters.minDeposit,
      parameters.payoutCapPerDay,
      parameters.twoKeyPayouts ?? false,
    ],
  });
}

/** The EIP-3009 nonce the escrow computes for the deposit of `amount` to `pre`. */
export function depositNonce(amount: bigint, pre: Hex): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: 'string' }, { type: 'uint256' }, { type: 'bytes32' }],
      ['priv-stark/deposit', amount, pre],
    ),
  );
}

/** An EIP-3009 authorization to sign. */
export interface Authorization {
  readonly token: Address;
  readonly from: Address;
  readonly to: Address;
  readonly value: bigint;
  readonly validAfter: bigint;
  readonly validBefore: bigint;
  readonly nonce: Hex;
}

/** The token's EIP-712 domain (USDC's name and version unless told). */
function tokenDomain(
  chain: Chain,
  token: Address,
  domain: { readonly name: string; readonly version: string },
) {
  return { ...domain, chainId: chain.chainId, verifyingContract: token };
}

const AUTHORIZATION_FIELDS = [
  { name: 'from', type: 'address' },
  { name: 'to', type: 'address' },
  { name: 'value', type: 'uint256' },
  { name: 'validAfter', type: 'uint256' },
  { name: 'validBefore', type: 'uint256' },
  { name: 'nonce', type: 'bytes32' },
] as const;

/**
 * `account`'s EIP-712 signature of an EIP-3009 authorization: `ReceiveWithAuthorization` (what a
 * deposit spends) unless `kind` says `TransferWithAuthorization`.
 */
export function signAuthorization(
  chain: Chain,
  account: PrivateKeyAccount,
  authorization: Authorization,
  kind: 'ReceiveWithAuthorization' | 'TransferWithAuthorization' = 'ReceiveWithAuthorization',
  domain: { readonly name: string; readonly version: string } = USDC_DOMAIN,
): Promise<Hex> {
  const { token, ...message } = authorization;
  return account.signTypedData({
    domain: tokenDomain(chain, token, domain),
    types: { [kind]: AUTHORIZATION_FIELDS },
    primaryType: kind,
    message,
  } as never);
}

/** `account`'s EIP-712 signature cancelling its `nonce` on `token`. */
export function signCancel(
  chain: Chain,
  account: PrivateKeyAccount,
  token: Address,
  nonce: Hex,
): Promise<Hex> {
  return account.signTypedData({
    domain: tokenDomain(chain, token, USDC_DOMAIN),
    types: {
      CancelAuthorization: [
        { name: 'authorizer', type: 'address' },
        { name: 'nonce', type: 'bytes32' },
      ],
    },
    primaryType: 'CancelAuthorization',
    message: { authorizer: account.address, nonce },
  });
}

/** `account`'s EIP-712 signature asking the escrow to return deposit `index` by `deadline`. */
export function signReclaim(
  chain: Chain,
  account: PrivateKeyAccount,
  escrow: Address,
  index: bigint,
  deadline: bigint,
): Promise<Hex> {
  return account.signTypedData({
    domain: {
      name: 'PrivStarkEscrow',
      version: '1',
      chainId: chain.chainId,
      verifyingContract: escrow,
    },
    types: {
      Reclaim: [
        { name: 'index', type: 'uint256' },
        { name: 'deadline', type: 'uint256' },
      ],
    },
    primaryType: 'Reclaim',
    message: { index, deadline },
  });
}

/** A 65-byte signature as the `(v, r, s)` a contract's other overload takes. */
export function vrs(signature: Hex): { v: number; r: Hex; s: Hex } {
  const { v, yParity, r, s } = parseSignature(signature);
  return { v: Number(v ?? BigInt(27 + (yParity ?? 0))), r, s };
}

/** Why a call reverted: a custom error's name and arguments, or a revert string. */
export interface Revert {
  readonly name: string;
  readonly args: readonly unknown[];
}

/**
 * The revert `promise` ends in: the custom error (`{ name, args }`) or `Error(string)`'s reason
 * (`{ name: 'Error', args: [reason] }`). Deployments fail without their ABI attached: `abi`
 * decodes their raw revert data. Throws if it does not revert with a decodable reason.
 */
export async function revertOf(promise: Promise<unknown>, abi?: Abi): Promise<Revert> {
  let error: unknown;
  try {
    await promise;
  } catch (caught) {
    error = caught;
  }
  if (error === undefined) throw new Error('expected a revert, but the call succeeded');
  if (!(error instanceof BaseError)) throw error;
  const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError);
  if (reverted instanceof ContractFunctionRevertedError) {
    if (reverted.data) return { name: reverted.data.errorName, args: reverted.data.args ?? [] };
    if (reverted.reason !== undefined) return { name: 'Error', args: [reverted.reason] };
  }
  const raw = error.walk((e) => typeof (e as { data?: unknown }).data === 'string');
  const data = (raw as { data?: Hex } | null)?.data;
  if (abi && data && data.length >= 10) {
    const decoded = decodeErrorResult({ abi, data });
    return { name: decoded.errorName, args: decoded.args ?? [] };
  }
  throw new Error(`expected a decodable contract revert, got: ${error.shortMessage}`, {
    cause: error,
  });
}

/** The latest block's timestamp. */
export async function now(chain: Chain): Promise<bigint> {
  return (await chain.public.getBlock()).timestamp;
}

/**
 * Waits until every transaction `address` has sent is in a block. Anvil's automine mines after it
 * has answered the send (measured on a quiet machine: 7 reads in 200 right after a send still
 * found it pending), so a suite that reads the chain right after the code under test sent
 * something waits here first. Gives up after a minute (a hang guard, not a timing threshold).
 */
export async function minedFrom(chain: Chain, address: Address): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const [latest, pending] = await Promise.all([
      chain.public.getTransactionCount({ address, blockTag: 'latest' }),
      chain.public.getTransactionCount({ address, blockTag: 'pending' }),
    ]);
    if (latest === pending) return;
    if (Date.now() > deadline)
      throw new Error(
        `${address} still has ${pending - latest} transactions unmined after a minute`,
      );
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
