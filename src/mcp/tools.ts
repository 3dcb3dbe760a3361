/**
 * @module The MCP tools: JSON Schema inputs (zod, converted by the SDK; shared shapes in
 * tool-schemas.ts), structured results with an `outputSchema`, and every refusal a tool error
 * (`isError: true`) whose text starts with its stable code — `per_payment_limit: …` — and names the
 * policy rule. One registration per tool, each over the same runner of the agent's work.
 */

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

import { PoolNodeError, WalletError } from '../client/index.js';
import { MAX_DESTINATION_CHARS } from '../scheme/index.js';
import type { PaymentAgent } from './agent.js';
import { PolicyRefusal, ToolError } from './errors.js';
import { DEFAULT_MAX_BYTES, DEFAULT_WAIT_MS, MAX_MAX_BYTES, MAX_WAIT_MS } from './pay-and-fetch.js';
import {
  atomic,
  commitment,
  destination,
  optionShape,
  outputIndexes,
  paymentShape,
  policyShape,
  rateShape,
  refusalShape,
  requestShape,
  usageShape,
} from './tool-schemas.js';
import { MAX_LISTED_NOTES } from './views.js';

/** The tools' names. */
export const TOOL_NAMES = [
  'quote_payment',
  'pay_and_fetch',
  'get_balance',
  'get_policy',
  'tighten_policy',
  'list_payments',
  'withdraw',
  'deposit',
  'merge_notes',
  'split_note',
] as const;

/** The error result of a tool: `<code>: <message>`. */
export function toolError(error: unknown, log: (line: string) => void): CallToolResult {
  let code: string;
  let message: string;
  if (error instanceof PolicyRefusal) {
    code = error.code;
    message = `refused by the policy rule ${error.rule}: ${error.message}`;
  } else if (
    error instanceof ToolError ||
    error instanceof WalletError ||
    error instanceof PoolNodeError
  ) {
    code = error.code;
    message = error.message;
  } else {
    // Not one of ours: its message could say anything, so it goes to the operator's log only.
    code = 'internal_error';
    message = "the server failed unexpectedly; the operator's log has the details";
    log(
      `internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
  }
  return { isError: true, content: [{ type: 'text', text: `${code}: ${message}` }] };
}

function result<T extends object>(value: T): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(value) }],
    structuredContent: value as Record<string, unknown>,
  };
}

/** Runs a tool's work: its value as the structured result, a failure as the tool's error. */
type RunTool = <T extends object>(work: () => Promise<T>) => Promise<CallToolResult>;

/** One tool's registration over the agent. */
type Registration = (server: McpServer, agent: PaymentAgent, run: RunTool) => void;

/** Each tool's registration, by name (the order of {@link TOOL_NAMES} is the order listed). */
const REGISTRATIONS: Readonly<Record<(typeof TOOL_NAMES)[number], Registration>> = {
  quote_payment: registerQuotePayment,
  pay_and_fetch: registerPayAndFetch,
  get_balance: registerGetBalance,
  get_policy: registerGetPolicy,
  tighten_policy: registerTightenPolicy,
  list_payments: registerListPayments,
  withdraw: registerWithdraw,
  deposit: registerDeposit,
  merge_notes: registerMergeNotes,
  split_note: registerSplitNote,
};

/** Registers the tools on an MCP server. */
export function registerTools(
  server: McpServer,
  agent: PaymentAgent,
  log: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): void {
  const run: RunTool = async (work) => {
    try {
      return result(await work());
    } catch (error) {
      return toolError(error, log);
    }
  };
  for (const name of TOOL_NAMES) REGISTRATIONS[name](server, agent, run);
}

/** `quote_payment`: what paying a URL would cost, nothing paid. */
function registerQuotePayment(server: McpServer, agent: PaymentAgent, run: RunTool): void {
  server.registerTool(
    'quote_payment',
    {
      title: 'Quote a paid URL',
      description:
        'Fetches the URL without paying. If it answers 402 (x402), shows what paying would cost — amount (atomic units), asset, network, recipient, expiry — and whether the spending policy allows it now. Hosts the policy does not allow are not contacted.',
      inputSchema: requestShape,
      outputSchema: {
        url: z.string(),
        status: z.number().int().describe('HTTP status of the unpaid request (0: not contacted)'),
        payment_required: z.boolean(),
        options: z.array(optionShape),
        selected: z.number().int().nullable().describe('The option pay_and_fetch would pay'),
        payment: z
          .object({
            amount: atomic,
            asset: z.string(),
            network: z.string(),
            pay_to: z.string(),
            expiry: z.string(),
          })
          .nullable(),
        allowed: z.boolean(),
        refusal: refusalShape,
        wallet_can_pay: z.boolean(),
        usage: usageShape,
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async (args) => run(() => agent.quote(args)),
  );
}

/** `pay_and_fetch`: pays a URL within the policy and returns the response. */
function registerPayAndFetch(server: McpServer, agent: PaymentAgent, run: RunTool): void {
  server.registerTool(
    'pay_and_fetch',
    {
      title: 'Pay for a URL and fetch it',
      description:
        "Fetches the URL and, if it answers 402, pays it privately with priv-stark/v1 through the merchant and its facilitator — only within the spending policy (per-payment and rolling 24-hour maximums, allowed hosts, recipients, networks, assets). Returns the response (bounded size, content type) and the payment, which counts as settled only once the pool's log shows it. A refusal names the policy rule; nothing is spent then.",
      inputSchema: {
        ...requestShape,
        max_bytes: z
          .number()
          .int()
          .min(0)
          .max(MAX_MAX_BYTES)
          .optional()
          .describe(`Response bytes returned at most (default ${DEFAULT_MAX_BYTES})`),
        wait_ms: z
          .number()
          .int()
          .min(0)
          .max(MAX_WAIT_MS)
          .optional()
          .describe(
            `How long to wait for the pool's log to show the settlement (default ${DEFAULT_WAIT_MS})`,
          ),
      },
      outputSchema: {
        url: z.string(),
        status: z.number().int(),
        ok: z.boolean(),
        content_type: z.string(),
        body: z.string(),
        body_encoding: z.enum(['utf8', 'base64']),
        bytes: z.number().int(),
        truncated: z.boolean(),
        location: z.string().nullable(),
        paid: z.boolean(),
        payment: paymentShape.nullable(),
        merchant_claim: z
          .object({ success: z.boolean(), transaction: z.string() })
          .nullable()
          .describe("The merchant's PAYMENT-RESPONSE; informational, not proof of settlement"),
      },
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    async ({ max_bytes, wait_ms, ...request }) =>
      run(() => agent.payAndFetch(request, { maxBytes: max_bytes, waitMs: wait_ms })),
  );
}

/** `get_balance`: the shielded balance and the spendable notes. */
function registerGetBalance(server: McpServer, agent: PaymentAgent, run: RunTool): void {
  server.registerTool(
    'get_balance',
    {
      title: 'Shielded balance',
      description:
        'Syncs the wallet with the pool, then gives its balance in atomic units: spendable, pending (locked by payments not yet resolved), unconfirmed (not in a checkpoint yet), total; the note count, and the spendable notes (commitment and value).',
      inputSchema: {},
      outputSchema: {
        asset: z.string(),
        decimals: z.number().int(),
        network: z.string(),
        spendable: atomic,
        pending: atomic,
        unconfirmed: atomic,
        total: atomic,
        spendable_display: z.string(),
        notes: z.number().int(),
        largest_spendable_note: atomic.describe('One payment spends one note'),
        checkpoint: z.number().int().nullable(),
        synced_at: z.string(),
        spendable_notes: z
          .array(z.object({ commitment: z.string(), value: atomic }))
          .describe(
            `The notes spendable now, the largest first (at most ${MAX_LISTED_NOTES}): what merge_notes and split_note take`,
          ),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () => run(() => agent.getBalance()),
  );
}

/** `get_policy`: the policy in force and its 24-hour usage. */
function registerGetPolicy(server: McpServer, agent: PaymentAgent, run: RunTool): void {
  server.registerTool(
    'get_policy',
    {
      title: 'Spending policy',
      description:
        'The spending policy in force (amounts in atomic units) and how much of the rolling 24-hour limit is used.',
      inputSchema: {},
      outputSchema: policyShape,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () => run(() => agent.getPolicy()),
  );
}

/** `tighten_policy`: narrows the policy (amounts as bigints for the agent). */
function registerTightenPolicy(server: McpServer, agent: PaymentAgent, run: RunTool): void {
  server.registerTool(
    'tighten_policy',
    {
      title: 'Tighten the spending policy',
      description:
        "Lowers limits or narrows the allow-lists (hosts, recipients, networks, assets, withdrawal destinations), persisted in the policy file. It can only narrow: raising a limit or allowing a host, recipient, network, asset or destination that is not allowed now is refused (only the operator's policy file can do that).",
      inputSchema: {
        max_per_payment: atomic.optional().describe('A lower per-payment maximum'),
        max_per_24h: atomic.optional().describe('A lower rolling 24-hour maximum'),
        restrict_hosts_to: z
          .array(z.string().max(300))
          .max(1000)
          .optional()
          .describe('Keep only these hosts (each already allowed)'),
        remove_hosts: z.array(z.string().max(300)).max(1000).optional(),
        restrict_recipients_to: z
          .array(z.string().max(300))
          .max(1000)
          .optional()
          .describe('Keep only these recipients (each already allowed)'),
        remove_recipients: z.array(z.string().max(300)).max(1000).optional(),
        remove_networks: z.array(z.string().max(100)).max(100).optional(),
        remove_assets: z.array(z.string().max(100)).max(100).optional(),
        remove_withdrawal_destinations: z
          .array(z.string().max(MAX_DESTINATION_CHARS))
          .max(1000)
          .optional()
          .describe('Withdrawal destinations no longer allowed (exact CAIP-10 account ids)'),
      },
      outputSchema: {
        ...policyShape,
        changed: z.array(z.string()).describe('The rules that changed'),
      },
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async (args) =>
      run(() =>
        agent.tightenPolicy({
          maxPerPayment:
            args.max_per_payment === undefined ? undefined : BigInt(args.max_per_payment),
          maxPer24h: args.max_per_24h === undefined ? undefined : BigInt(args.max_per_24h),
          restrictHostsTo: args.restrict_hosts_to,
          removeHosts: args.remove_hosts,
          restrictRecipientsTo: args.restrict_recipients_to,
          removeRecipients: args.remove_recipients,
          removeNetworks: args.remove_networks,
          removeAssets: args.remove_assets,
          removeWithdrawalDestinations: args.remove_withdrawal_destinations,
        }),
      ),
  );
}

/** `list_payments`: recent payments and withdrawals. */
function registerListPayments(server: McpServer, agent: PaymentAgent, run: RunTool): void {
  server.registerTool(
    'list_payments',
    {
      title: 'Recent payments',
      description:
        "Syncs, then lists recent payments and withdrawals (kind), newest first: pending (out, not settled in the pool's log yet), settled (with the pool's settlement id) or expired (never settled; the note returned to the balance). Merges and splits are not listed: they move no value out of the wallet.",
      inputSchema: {
        limit: z.number().int().min(1).max(200).optional().describe('How many (default 20)'),
      },
      outputSchema: { payments: z.array(paymentShape) },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ limit }) => run(async () => ({ payments: await agent.listPayments(limit ?? 20) })),
  );
}

/** `withdraw`: out of the pool to a destination the policy lists. */
function registerWithdraw(server: McpServer, agent: PaymentAgent, run: RunTool): void {
  server.registerTool(
    'withdraw',
    {
      title: 'Withdraw out of the pool',
      description:
        "Withdraws an amount (atomic units) out of the shielded pool to an account on another chain (a CAIP-10 account id the policy lists in withdrawalDestinations, exactly), the change staying in the wallet. Spending: it counts against the policy's per-payment maximum and rolling 24-hour maximum like a payment, and shows in list_payments as kind withdrawal. The pool applies it at once and its operator pays the destination out afterwards. It reveals to the pool the amount and the destination (not which note paid). A refusal names the policy rule; nothing leaves then.",
      inputSchema: {
        destination,
        amount: atomic.describe('Atomic units to withdraw'),
        confirm: z
          .boolean()
          .optional()
          .describe(
            "true to go on with an exit that links back to the wallet's deposits (its amount is a deposit's, or the destination funded one): both are public on chain; without it such an exit is refused (exit_linkable) with the warnings",
          ),
      },
      outputSchema: {
        id: z.string().describe("The withdrawal's entry in the spend ledger"),
        status: z.literal('settled'),
        amount: atomic,
        asset: z.string(),
        network: z.string(),
        destination: z.string(),
        transaction: z.string().describe("The pool's id of the exit"),
        change: atomic.describe('What stays in the wallet of the note spent (a new note)'),
        warnings: z
          .array(z.string())
          .describe("What links this exit to the wallet's deposits (confirmed: confirm true)"),
        usage: usageShape,
      },
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    async (args) => run(() => agent.withdraw(args)),
  );
}

/** `deposit`: from the operator's EVM account into a chain pool's escrow, by signature. */
function registerDeposit(server: McpServer, agent: PaymentAgent, run: RunTool): void {
  server.registerTool(
    'deposit',
    {
      title: 'Deposit into the pool',
      description:
        "In a pool backed by an escrow on a chain (USDC): funds the wallet from the EVM account the operator configured for this server (never a key from the input), by an EIP-3009 signature the pool's relayer sends — the account needs no ETH. The relayer's fee is refused above max_fee (default 0). Within the policy: the wallet's network and asset allowed, amount plus max_fee within maxPerPayment, the last 24 hours' deposits within maxPer24h (counted apart from spending). Public on chain: the account, the amount and the time. The deposit is spendable once the pool has accepted and shielded it (a sync after its confirmations).",
      inputSchema: {
        amount: atomic.describe('Atomic units to deposit (USDC: 1000000 is 1 USDC)'),
        max_fee: atomic
          .optional()
          .describe('The most the relayer may take, atomic units (default 0)'),
      },
      outputSchema: {
        deposit: z.number().int().nullable().describe("The escrow's index of the deposit"),
        amount: atomic,
        fee: atomic.describe('What the relayer took'),
        depositor: z.string().describe('The EVM account that paid'),
        transaction: z.string().nullable(),
        mined: z.boolean(),
        network: z.string(),
        asset: z.string(),
      },
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    async (args) => run(() => agent.deposit(args)),
  );
}

/** `merge_notes`: two notes into one, value kept in the wallet. */
function registerMergeNotes(server: McpServer, agent: PaymentAgent, run: RunTool): void {
  server.registerTool(
    'merge_notes',
    {
      title: 'Merge two notes',
      description:
        "Merges two of the wallet's notes into one (default: the two smallest spendable), so that one payment can spend more (a payment spends one note). The value stays in the wallet: not spending, not counted against the policy's limits; rate-limited (merges and splits per minute). The pool sees two nullifiers and two new commitments, as for any payment — not the amounts, not that it was a merge. The new note is spendable once a checkpoint covers it (seconds): do not merge right before a payment, which would then wait for it.",
      inputSchema: {
        commitments: z
          .array(commitment)
          .length(2)
          .optional()
          .describe('The two notes to merge (default: the two smallest spendable)'),
      },
      outputSchema: {
        transaction: z.string().describe("The pool's id of the transition"),
        merged: z.array(z.string()).length(2).describe('The two notes spent'),
        value: atomic.describe("The new note's value"),
        output_indexes: outputIndexes,
        rate: rateShape,
      },
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    async ({ commitments }) =>
      run(() => agent.mergeNotes(commitments as [string, string] | undefined)),
  );
}

/** `split_note`: one note into two, value kept in the wallet. */
function registerSplitNote(server: McpServer, agent: PaymentAgent, run: RunTool): void {
  server.registerTool(
    'split_note',
    {
      title: 'Split a note',
      description:
        "Splits one of the wallet's notes into two: the amount (atomic units) and the rest, each at least 1000; e.g. to have several notes ready for payments made at once. The value stays in the wallet: not spending, not counted against the policy's limits; rate-limited (merges and splits per minute). The pool sees two nullifiers and two new commitments, as for any payment — not the amounts, not that it was a split. The new notes are spendable once a checkpoint covers them (seconds): do not split right before a payment.",
      inputSchema: {
        commitment: commitment.describe('The note to split (see get_balance: spendable_notes)'),
        amount: atomic.describe('Atomic units of the first part; the rest is the second'),
      },
      outputSchema: {
        transaction: z.string().describe("The pool's id of the transition"),
        split: z.string().describe('The note spent'),
        parts: z.array(atomic).length(2).describe("The two new notes' values"),
        output_indexes: outputIndexes,
        rate: rateShape,
      },
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    async ({ commitment: note, amount }) => run(() => agent.splitNote(note, amount)),
  );
}
