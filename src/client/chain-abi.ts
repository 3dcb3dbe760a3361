/**
 * @module What the wallet calls on the escrow and its token, as human-readable ABI fragments (the
 * wallet's chain module does not load the pool node's generated artifacts; a test holds these
 * against them, selector for selector). Part of `priv-stark/client/chain`: loads viem.
 */

import { parseAbi } from 'viem';

/** The token's calls a deposit needs: its EIP-712 domain, decimals, balance, approval. */
export const TOKEN_ABI = parseAbi([
  'function name() view returns (string)',
  'function version() view returns (string)',
  'function decimals() view returns (uint8)',
  'function DOMAIN_SEPARATOR() view returns (bytes32)',
  'function balanceOf(address account) view returns (uint256)',
  'function allowance(address owner, address spender) view returns (uint256)',
  'function approve(address spender, uint256 value) returns (bool)',
]);

/** The escrow's calls and events a wallet uses, and the errors a deposit or reclaim may revert with. */
export const ESCROW_ABI = parseAbi([
  'function token() view returns (address)',
  'function depositNonce(uint256 amount, bytes32 pre) pure returns (bytes32)',
  'function isDeposited(uint256 amount, bytes32 pre) view returns (bool)',
  'function deposit(uint256 amount, bytes32 pre) returns (uint256 index)',
  'struct Deposit { address depositor; uint8 state; uint40 depositedAt; uint40 reclaimableAt; uint64 amount; bytes32 pre; }',
  'function getDeposit(uint256 index) view returns (Deposit)',
  'function depositCount() view returns (uint256)',
  'function reclaim(uint256 index)',
  'function isPaid(bytes32 withdrawalId) view returns (bool)',
  'struct Attestation { uint64 seq; uint40 attestedAt; bytes32 root; bytes32 logDigest; bytes32 unpaidRoot; uint128[4] totals; }',
  'function latestAttestation() view returns (Attestation)',
  'event Deposited(uint256 indexed index, address indexed depositor, uint256 amount, bytes32 pre, address indexed relayer, uint256 fee)',
  'event Paid(bytes32 indexed withdrawalId, address indexed to, uint256 amount)',
  'error DepositBelowMinimum(uint256 amount, uint256 minDeposit)',
  'error DepositTooLarge(uint256 amount)',
  'error NonCanonicalPre(bytes32 pre)',
  'error DuplicateDeposit(uint256 amount, bytes32 pre)',
  'error UnknownDeposit(uint256 index)',
  'error NotDepositor(uint256 index, address caller)',
  'error DepositNotReclaimable(uint256 index, uint8 state)',
  'error ReclaimTooEarly(uint256 index, uint256 reclaimableAt)',
  'error EnforcedPause()',
]);

/** The escrow's deposit states (its enum's order). */
export const DEPOSIT_STATES = ['pending', 'accepted', 'declined', 'reclaimed'] as const;

/** The escrow's EIP-712 domain name and version (its constructor's `EIP712("PrivStarkEscrow", "1")`). */
export const ESCROW_DOMAIN = { name: 'PrivStarkEscrow', version: '1' } as const;

/** What the escrow signs into a deposit's EIP-3009 nonce beside `(amount, pre)`. */
export const DEPOSIT_NONCE_DOMAIN = 'priv-stark/deposit';
