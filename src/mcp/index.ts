/**
 * @module `priv-stark/mcp`: the MCP server through which agents pay privately within a spending
 * policy a person set (docs/mcp.md).
 */

export { type AgentOptions, PaymentAgent } from './agent.js';
export type { DepositConfig, DepositInput } from './deposit.js';
export { PolicyFileError, PolicyRefusal, type PolicyRule, ToolError } from './errors.js';
export { DEFAULT_TRANSITIONS_PER_MINUTE } from './note-transitions.js';
export {
  DEFAULT_MAX_BYTES,
  DEFAULT_WAIT_MS,
  MAX_MAX_BYTES,
  MAX_WAIT_MS,
} from './pay-and-fetch.js';
export { LedgerFile } from './spend-ledger-file.js';
export {
  KEEP_MS,
  type Reservation,
  type SpendEntry,
  SpendLedger,
  type SpendStatus,
  WINDOW_MS,
} from './spend-ledger.js';
export {
  type AllowList,
  checkDeposit,
  checkPayment,
  checkWithdrawal,
  type DepositIntent,
  hostAllowed,
  parsePolicy,
  type PaymentIntent,
  type Policy,
  policyToJson,
  type PolicyTightening,
  tightenPolicy,
  type WithdrawalIntent,
} from './policy.js';
export { PolicyFile, type PolicySource } from './policy-file.js';
export {
  createMcpServer,
  type HttpEndpoint,
  SERVER_INFO,
  serveHttp,
  serveStdio,
} from './server.js';
export { registerTools, TOOL_NAMES, toolError } from './tools.js';
export {
  type BalanceView,
  type DepositView,
  formatUnits,
  MAX_LISTED_NOTES,
  type MergeView,
  type PaidView,
  type PaymentView,
  type PolicyView,
  type QuoteView,
  type SplitView,
  type TransitionRateView,
  type UsageView,
  type WithdrawalView,
} from './views.js';
