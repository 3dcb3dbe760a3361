/**
 * @module Deploying an escrow (`priv-stark chain deploy`, the chain demo): the escrow from the
 * committed bytecode over a token — the test token deployed beside it on a local chain when none is
 * named — with the hot roles granted to the addresses given, the deployment awaited to the
 * confirmations asked; and minting the test token on a local chain (`priv-stark chain mint`).
 * Nothing is compiled here: the bytecode is `contract-artifacts.ts`, as a block explorer verifies
 * it from `contracts/artifacts/`.
 */

import {
  type Address,
  createWalletClient,
  getAddress,
  http,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
  type WalletClient,
} from 'viem';
import type { Account } from 'viem/accounts';

import {
  privStarkEscrowAbi,
  privStarkEscrowBytecode,
  testUsdcAbi,
  testUsdcBytecode,
} from './contract-artifacts.js';
import { DEVELOPMENT_CHAIN_ID } from './keys.js';
import { type ChainClients, chainOf } from './rpc-client.js';

/** Base's USDC EIP-712 domain (FiatTokenV2_2): what the test token is deployed with. */
export const TEST_TOKEN_DOMAIN = { name: 'USD Coin', symbol: 'USDC', version: '2' } as const;

/** The escrow's hot roles a deployment may grant (the relayer needs none: anyone may relay). */
export const ESCROW_ROLES = {
  acceptor: 'ACCEPTOR_ROLE',
  payout: 'PAYOUT_ROLE',
  pauser: 'PAUSER_ROLE',
  attester: 'ATTESTER_ROLE',
} as const;

/** A role {@link deployEscrow} grants. */
export type EscrowRole = keyof typeof ESCROW_ROLES;

/** The escrow's parameters (atomic units and seconds). */
export interface EscrowParameters {
  /** Seconds before an admin transfer or a parameter change takes effect. */
  readonly adminDelay: number;
  /** Seconds before a Pending deposit may be reclaimed (1 to 30 days). */
  readonly reclaimDelay: bigint;
  readonly minDeposit: bigint;
  readonly payoutCapPerDay: bigint;
  /**
   * Every payout needs an inclusion proof under the latest attestation's unpaid root (fixed at
   * deployment; docs/chain.md, "Two-key payouts"). Default off.
   */
  readonly twoKeyPayouts?: boolean;
}

/** What a deployment asks. */
export interface DeployRequest {
  readonly clients: ChainClients;
  /** Deploys, pays the gas and becomes the escrow's default admin. */
  readonly deployer: Account;
  /** The token the escrow holds; absent on a local chain: the test token is deployed first. */
  readonly token?: Address | undefined;
  readonly parameters: EscrowParameters;
  /** Addresses granted each hot role (none granted when absent). */
  readonly roles?: Readonly<Partial<Record<EscrowRole, Address>>>;
  /** Blocks the last transaction is awaited to (default 1: mined). */
  readonly confirmations?: number;
  /** How long each transaction is awaited, ms (default 120 000). */
  readonly timeoutMs?: number;
}

/** A deployed escrow. */
export interface Deployment {
  readonly chainId: number;
  /** EIP-55. */
  readonly escrow: Address;
  readonly token: Address;
  /** The block the escrow was deployed in: where the deposit watcher starts reading. */
  readonly deployBlock: number;
}

/** Why a deployment or a mint was refused before anything was sent. */
export class DeployRefusal extends Error {
  override readonly name = 'DeployRefusal';
  constructor(
    readonly code: 'token_required' | 'local_chain_only' | 'token_not_contract',
    message: string,
  ) {
    super(message);
  }
}

/** One account's transactions on one chain, each awaited to its receipt. */
class Sender {
  private readonly wallet: WalletClient;

  constructor(
    private readonly publicClient: PublicClient,
    clients: ChainClients,
    private readonly account: Account,
    chainId: number,
    private readonly timeoutMs: number,
  ) {
    this.wallet = clientFor(clients, account, chainId);
  }

  async deploy(abi: readonly unknown[], bytecode: Hex, args: readonly unknown[]) {
    const hash = await this.wallet.deployContract({
      abi,
      bytecode,
      args,
      account: this.account,
      chain: this.wallet.chain,
    } as never);
    const receipt = await this.receipt(hash, 1);
    if (!receipt.contractAddress) throw new Error('the deployment left no contract');
    return { address: getAddress(receipt.contractAddress), receipt };
  }

  async call(address: Address, abi: readonly unknown[], functionName: string, args: unknown[]) {
    const hash = await this.wallet.writeContract({
      address,
      abi,
      functionName,
      args,
      account: this.account,
      chain: this.wallet.chain,
    } as never);
    return this.receipt(hash, 1);
  }

  async receipt(hash: Hex, confirmations: number): Promise<TransactionReceipt> {
    const receipt = await this.publicClient.waitForTransactionReceipt({
      hash,
      confirmations,
      timeout: this.timeoutMs,
      pollingInterval: 100,
    });
    if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
    return receipt;
  }
}

/** A wallet client for `account` (a local account or any other viem signs with). */
function clientFor(clients: ChainClients, account: Account, chainId: number): WalletClient {
  return clients.wallet(account as never, chainId);
}

/** The chain id the RPC serves. */
export async function chainIdOf(clients: ChainClients): Promise<number> {
  return clients.public.getChainId();
}

/**
 * Deploys the escrow (and on a local chain without a token, the test token first, owned by the
 * deployer), grants the roles asked, and waits for the confirmations asked.
 * @throws DeployRefusal `token_required` (no token off a local chain), `token_not_contract`;
 *   the RPC's or the chain's error otherwise (nothing after a failed step is sent)
 */
export async function deployEscrow(request: DeployRequest): Promise<Deployment> {
  const { clients, deployer, parameters } = request;
  const chainId = await chainIdOf(clients);
  if (request.token === undefined && chainId !== DEVELOPMENT_CHAIN_ID)
    throw new DeployRefusal(
      'token_required',
      `chain ${chainId} is not a local chain: name the token the escrow holds (--token, USDC's address)`,
    );
  if (request.token !== undefined) await requireContract(clients, request.token);
  const sender = new Sender(
    clients.public,
    clients,
    deployer,
    chainId,
    request.timeoutMs ?? 120_000,
  );
  const token =
    request.token ??
    (
      await sender.deploy(testUsdcAbi, testUsdcBytecode, [
        TEST_TOKEN_DOMAIN.name,
        TEST_TOKEN_DOMAIN.symbol,
        TEST_TOKEN_DOMAIN.version,
        deployer.address,
      ])
    ).address;
  const escrow = await sender.deploy(privStarkEscrowAbi, privStarkEscrowBytecode, [
    token,
    deployer.address,
    parameters.adminDelay,
    parameters.reclaimDelay,
    parameters.minDeposit,
    parameters.payoutCapPerDay,
    parameters.twoKeyPayouts ?? false,
  ]);
  let last = escrow.receipt;
  for (const [role, holder] of Object.entries(request.roles ?? {}) as [EscrowRole, Address][]) {
    const id = await clients.public.readContract({
      address: escrow.address,
      abi: privStarkEscrowAbi,
      functionName: ESCROW_ROLES[role],
    });
    last = await sender.call(escrow.address, privStarkEscrowAbi, 'grantRole', [id, holder]);
  }
  const confirmations = request.confirmations ?? 1;
  if (confirmations > 1) await sender.receipt(last.transactionHash, confirmations);
  return {
    chainId,
    escrow: escrow.address,
    token: getAddress(token),
    deployBlock: Number(escrow.receipt.blockNumber),
  };
}

/**
 * Refuses an address without code as the token.
 * @throws DeployRefusal `token_not_contract`
 */
export async function requireContract(clients: ChainClients, token: Address): Promise<void> {
  const code = await clients.public.getCode({ address: token });
  if (code === undefined || code === '0x')
    throw new DeployRefusal('token_not_contract', `no contract at ${token}`);
}

/** The token's decimals (USDC: 6). */
export async function tokenDecimals(clients: ChainClients, token: Address): Promise<number> {
  const decimals = await clients.public.readContract({
    address: token,
    abi: testUsdcAbi,
    functionName: 'decimals',
  });
  return Number(decimals);
}

/**
 * Mints `amount` of the test token to `to` on a local chain: signed by `minter` (the token's
 * owner), or — without one — sent as the token's owner through the local node's impersonation.
 * @throws DeployRefusal `local_chain_only` on any other chain; the node's error otherwise
 * @returns the transaction's hash
 */
export async function mintTestToken(request: {
  readonly clients: ChainClients;
  readonly token: Address;
  readonly to: Address;
  readonly amount: bigint;
  readonly minter?: Account | undefined;
  readonly timeoutMs?: number;
}): Promise<Hex> {
  const { clients, token, to, amount } = request;
  const chainId = await chainIdOf(clients);
  if (chainId !== DEVELOPMENT_CHAIN_ID)
    throw new DeployRefusal(
      'local_chain_only',
      `minting is for the test token on a local chain (${DEVELOPMENT_CHAIN_ID}); this RPC serves chain ${chainId}`,
    );
  await requireContract(clients, token);
  const timeoutMs = request.timeoutMs ?? 120_000;
  if (request.minter) {
    const sender = new Sender(clients.public, clients, request.minter, chainId, timeoutMs);
    return (await sender.call(token, testUsdcAbi, 'mint', [to, amount])).transactionHash;
  }
  const owner = await clients.public.readContract({
    address: token,
    abi: testUsdcAbi,
    functionName: 'owner',
  });
  return impersonated(clients, owner, chainId, async (wallet) =>
    wallet.writeContract({
      address: token,
      abi: testUsdcAbi,
      functionName: 'mint',
      args: [to, amount],
      account: owner,
      chain: chainOf(chainId, clients.url),
    }),
  ).then(async (hash) => {
    const receipt = await clients.public.waitForTransactionReceipt({
      hash,
      timeout: timeoutMs,
      pollingInterval: 100,
    });
    if (receipt.status !== 'success') throw new Error(`mint ${hash} reverted`);
    return hash;
  });
}

/** Runs `send` with `address` impersonated on the local node (`anvil_impersonateAccount`). */
async function impersonated<T>(
  clients: ChainClients,
  address: Address,
  chainId: number,
  send: (wallet: WalletClient) => Promise<T>,
): Promise<T> {
  const request = clients.public.request as (args: {
    method: string;
    params: unknown[];
  }) => Promise<unknown>;
  await request({ method: 'anvil_impersonateAccount', params: [address] });
  try {
    const wallet = createWalletClient({
      account: address,
      chain: chainOf(chainId, clients.url),
      transport: http(clients.url, { retryCount: 0 }),
    });
    return await send(wallet);
  } finally {
    await request({ method: 'anvil_stopImpersonatingAccount', params: [address] }).catch(
      () => undefined,
    );
  }
}
