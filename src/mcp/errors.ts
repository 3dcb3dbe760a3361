/**
 * @module What the MCP tools refuse with: every refusal has a stable snake_case `code`, and a
 * policy refusal also names the policy `rule` it enforces, so an agent (and the person reading its
 * transcript) can tell which limit stopped a payment.
 */

/** The policy rules, as named in the policy file. */
export type PolicyRule =
  | 'maxPerPayment'
  | 'maxPer24h'
  | 'hosts'
  | 'recipients'
  | 'networks'
  | 'assets'
  | 'withdrawalDestinations';

/** A tool call that did not do what was asked, and why. */
export class ToolError extends Error {
  constructor(
    /** Stable snake_case code. */
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ToolError';
  }
}

/** A payment, withdrawal or policy change the policy in force does not allow. Nothing was spent. */
export class PolicyRefusal extends ToolError {
  constructor(
    code:
      | 'per_payment_limit'
      | 'rolling_24h_limit'
      | 'host_not_allowed'
      | 'recipient_not_allowed'
      | 'network_not_allowed'
      | 'asset_not_allowed'
      | 'destination_not_allowed'
      | 'policy_raise_refused'
      | 'policy_tighten_unsupported',
    /** The rule of the policy file that refused it. */
    readonly rule: PolicyRule,
    message: string,
  ) {
    super(code, message);
    this.name = 'PolicyRefusal';
  }
}

/** The operator's policy file is missing, unsafe or malformed: nothing is paid until it is fixed. */
export class PolicyFileError extends ToolError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('policy_invalid', message, options);
    this.name = 'PolicyFileError';
  }
}
