// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {AccessControlDefaultAdminRules} from
    "@openzeppelin/contracts/access/extensions/AccessControlDefaultAdminRules.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";

import {CanonicalDigest} from "./CanonicalDigest.sol";
import {DelayedParameters} from "./DelayedParameters.sol";
import {IReceiveWithAuthorization} from "./IReceiveWithAuthorization.sol";
import {RollingPayoutCap} from "./RollingPayoutCap.sol";
import {TwoKeyPayouts} from "./TwoKeyPayouts.sol";

/// @title The escrow that backs a priv-stark pool with one ERC-20 (USDC on Base)
/// @notice Deposits come in as `(amount, pre)` — the amount and the wallet's precommitment of a
/// deposit ticket — and wait as `Pending`. The acceptor, in batches, moves each to exactly one of
/// `Accepted` (its funds join the custody that payouts draw from; the pool shields the note) or
/// `Declined` (reclaimable at once). A deposit still `Pending` after the reclaim delay it was made
/// under, or `Declined`, goes back to its depositor, by the depositor's own call or by anyone
/// carrying the depositor's EIP-712 signature. Payouts (exits from the pool) are made by the
/// payout role only, from custody, each withdrawal id once, within a rolling 24-hour cap; with
/// two-key payouts (a deployment choice, TwoKeyPayouts) only for a withdrawal the latest
/// attestation claims unpaid.
///
/// Who can do what:
/// * The default admin (OpenZeppelin's AccessControlDefaultAdminRules: a transfer of the admin
///   role, or a change of its delay, takes effect only after the delay) grants and revokes roles
///   and changes the three parameters by schedule-then-apply after the same delay. It cannot move
///   funds: no function does but the payouts, `reclaim` and the deposits themselves.
/// * ACCEPTOR_ROLE accepts and declines Pending deposits. PAYOUT_ROLE pays out from custody,
///   within the cap. PAUSER_ROLE pauses and unpauses deposits and payouts — never reclaims.
/// * ATTESTER_ROLE posts the operator's attestations of the pool's log (`attest`,
///   PoolAttestations): claims kept in order, each later than the last, checked by the audit, not
///   here. It moves no funds, so a pause does not stop it. With two-key payouts its unpaid root is
///   the second key of every payout: PAYOUT_ROLE pays only what it lists.
/// * The relayer has no role: anyone may relay a gasless deposit (and is paid its fee by the
///   depositor's signed `value − amount`) or a signed reclaim (the funds go to the depositor).
///
/// Not upgradeable: no proxy, no delegatecall, no selfdestruct, no rescue function. Tokens sent
/// to the escrow directly stay in it: the escrow's balance is always at least
/// `custody + unacceptedTotal`, and what exceeds it is such a transfer.
contract PrivStarkEscrow is
    AccessControlDefaultAdminRules,
    Pausable,
    ReentrancyGuardTransient,
    EIP712,
    DelayedParameters,
    RollingPayoutCap,
    TwoKeyPayouts
{
    using SafeERC20 for IERC20;

    /// @notice The state of a deposit. `Pending` moves to exactly one of the others; `Declined`
    /// may then move to `Reclaimed`; `Accepted` and `Reclaimed` are final.
    enum DepositState {
        Pending,
        Accepted,
        Declined,
        Reclaimed
    }

    /// @notice A deposit, at its index. `amount` is below 2^62 (the pool's bound); timestamps are
    /// unix seconds; `reclaimableAt` is `depositedAt` plus the reclaim delay in force then.
    struct Deposit {
        address depositor;
        DepositState state;
        uint40 depositedAt;
        uint40 reclaimableAt;
        uint64 amount;
        bytes32 pre;
    }

    /// @dev A gasless deposit's terms, gathered in memory to keep the stack shallow.
    struct Authorization {
        address from;
        uint256 amount;
        bytes32 pre;
        uint256 value;
        uint256 validAfter;
        uint256 validBefore;
    }

    /// @notice Accepts and declines Pending deposits.
    bytes32 public constant ACCEPTOR_ROLE = keccak256("ACCEPTOR_ROLE");
    /// @notice Pays out from custody, within the cap.
    bytes32 public constant PAYOUT_ROLE = keccak256("PAYOUT_ROLE");
    /// @notice Pauses and unpauses deposits and payouts.
    bytes32 public constant PAUSER_ROLE = keccak256("PAUSER_ROLE");
    /// @notice Posts the operator's attestations of the pool's log.
    bytes32 public constant ATTESTER_ROLE = keccak256("ATTESTER_ROLE");

    /// @notice Amounts are below 2^62: what the pool's notes hold.
    uint256 public constant MAX_AMOUNT_EXCLUSIVE = 1 << 62;
    /// @notice The reclaim delay is at least a day…
    uint256 public constant MIN_RECLAIM_DELAY = 1 days;
    /// @notice …and at most 30 days, so no parameter change can lock a depositor out for long.
    uint256 public constant MAX_RECLAIM_DELAY = 30 days;
    /// @notice What the escrow signs into a deposit's EIP-3009 nonce, beside `(amount, pre)`.
    string public constant DEPOSIT_NONCE_DOMAIN = "priv-stark/deposit";
    /// @notice The EIP-712 type a depositor signs to have a deposit reclaimed by someone else.
    bytes32 public constant RECLAIM_TYPEHASH = keccak256("Reclaim(uint256 index,uint256 deadline)");

    /// @notice The one token this escrow holds.
    IERC20 public immutable token;

    /// @notice Accepted and not yet paid out: the most payouts can draw.
    uint256 public custody;
    /// @notice Pending or Declined and not reclaimed: owed to depositors.
    uint256 public unacceptedTotal;

    Deposit[] private _deposits;
    /// @dev keccak256(abi.encode(amount, pre)) of every deposit ever made.
    mapping(bytes32 => bool) private _depositKeys;
    mapping(bytes32 withdrawalId => bool) private _paid;

    /// @notice A deposit at `index`: `amount` from `depositor` to the precommitment `pre`,
    /// submitted by `relayer` (the depositor itself on the direct path), who was paid `fee`.
    event Deposited(
        uint256 indexed index,
        address indexed depositor,
        uint256 amount,
        bytes32 pre,
        address indexed relayer,
        uint256 fee
    );
    /// @notice The deposit at `index` was accepted: `amount` joined custody.
    event Accepted(uint256 indexed index, uint256 amount);
    /// @notice The deposit at `index` was declined: its depositor may reclaim it now.
    event Declined(uint256 indexed index, uint256 amount);
    /// @notice The deposit at `index` went back to `depositor`.
    event Reclaimed(uint256 indexed index, address indexed depositor, uint256 amount);
    /// @notice `amount` was paid to `to` for the pool's withdrawal `withdrawalId`.
    event Paid(bytes32 indexed withdrawalId, address indexed to, uint256 amount);

    /// @notice The token address has no code.
    error TokenNotContract(address token);
    /// @notice The reclaim delay must be within [MIN_RECLAIM_DELAY, MAX_RECLAIM_DELAY].
    error ReclaimDelayOutOfRange(uint256 value);
    /// @notice The minimum deposit must be above 0 and below 2^62.
    error MinDepositOutOfRange(uint256 value);
    /// @notice A deposit below the minimum deposit.
    error DepositBelowMinimum(uint256 amount, uint256 minDeposit);
    /// @notice A deposit of 2^62 or more.
    error DepositTooLarge(uint256 amount);
    /// @notice `pre` is not a canonical digest (a limb at or above the Goldilocks modulus).
    error NonCanonicalPre(bytes32 pre);
    /// @notice `(amount, pre)` was deposited before (whatever became of it).
    error DuplicateDeposit(uint256 amount, bytes32 pre);
    /// @notice The signed `value` does not cover the deposit's `amount`.
    error ValueBelowAmount(uint256 value, uint256 amount);
    /// @notice The token moved another amount than asked (fee-on-transfer or a hostile token).
    error UnexpectedBalanceChange(uint256 expected, uint256 before, uint256 afterwards);
    /// @notice No deposit at `index`.
    error UnknownDeposit(uint256 index);
    /// @notice The deposit at `index` is not Pending (accept, decline).
    error DepositNotPending(uint256 index, DepositState state);
    /// @notice The caller is not the deposit's depositor.
    error NotDepositor(uint256 index, address caller);
    /// @notice The deposit at `index` is Accepted or Reclaimed: nothing to reclaim.
    error DepositNotReclaimable(uint256 index, DepositState state);
    /// @notice The Pending deposit at `index` may be reclaimed only from `reclaimableAt`.
    error ReclaimTooEarly(uint256 index, uint256 reclaimableAt);
    /// @notice The reclaim signature's deadline has passed.
    error ReclaimSignatureExpired(uint256 deadline);
    /// @notice The reclaim signature is not the depositor's.
    error InvalidReclaimSignature(uint256 index);
    /// @notice The payout's deadline has passed.
    error PayoutExpired(bytes32 withdrawalId, uint64 deadline);
    /// @notice The withdrawal was paid out before.
    error WithdrawalAlreadyPaid(bytes32 withdrawalId);
    /// @notice A payout to the zero address, the escrow or the token.
    error InvalidPayoutRecipient(address to);
    /// @notice A payout of nothing.
    error ZeroPayout(bytes32 withdrawalId);
    /// @notice The payout exceeds the funds in custody.
    error PayoutExceedsCustody(uint256 amount, uint256 custody);

    /// @param token_ the ERC-20 held (USDC: 6 decimals, EIP-3009)
    /// @param admin the default admin (a cold key or a multisig)
    /// @param adminDelay seconds before an admin transfer or a parameter change takes effect
    /// @param reclaimDelay_ seconds before a Pending deposit may be reclaimed (1 to 30 days)
    /// @param minDeposit_ the smallest deposit (atomic units, > 0)
    /// @param payoutCapPerDay_ the most paid out in any 24 hours (atomic units)
    /// @param twoKeyPayouts_ whether a payout needs a proof under the latest attestation (for good)
    constructor(
        IERC20 token_,
        address admin,
        uint48 adminDelay,
        uint256 reclaimDelay_,
        uint256 minDeposit_,
        uint256 payoutCapPerDay_,
        bool twoKeyPayouts_
    )
        AccessControlDefaultAdminRules(adminDelay, admin)
        EIP712("PrivStarkEscrow", "1")
        TwoKeyPayouts(twoKeyPayouts_)
    {
        if (address(token_).code.length == 0) revert TokenNotContract(address(token_));
        token = token_;
        _initParameter(Parameter.ReclaimDelay, reclaimDelay_);
        _initParameter(Parameter.MinDeposit, minDeposit_);
        _initParameter(Parameter.PayoutCapPerDay, payoutCapPerDay_);
    }

    // --- deposits -------------------------------------------------------------------------------

    /// @notice Deposits `amount` to `pre` from the caller, after the caller's `approve`.
    /// @return index the deposit's index
    function deposit(uint256 amount, bytes32 pre) external whenNotPaused nonReentrant returns (uint256 index) {
        _checkNewDeposit(amount, pre);
        uint256 before = token.balanceOf(address(this));
        token.safeTransferFrom(msg.sender, address(this), amount);
        _checkReceived(before, amount);
        return _record(msg.sender, amount, pre, 0);
    }

    /// @notice Deposits `amount` to `pre` from `from`, gaslessly: the escrow spends `from`'s
    /// EIP-3009 `receiveWithAuthorization` of `value` whose nonce it computes itself as
    /// {depositNonce}`(amount, pre)`, keeps `amount` and pays `value − amount` to the caller (the
    /// relayer's fee). The nonce binds the signature to this `(amount, pre)`: a relayer can change
    /// neither, nor the fee, and one ticket moves funds once, whichever path and fee.
    /// @return index the deposit's index
    function depositWithAuthorization(
        address from,
        uint256 amount,
        bytes32 pre,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external whenNotPaused nonReentrant returns (uint256 index) {
        Authorization memory terms = Authorization(from, amount, pre, value, validAfter, validBefore);
        uint256 before = _beforeAuthorized(terms);
        _receiveSigned(terms, v, r, s);
        return _settleAuthorized(terms, before);
    }

    /// @notice {depositWithAuthorization} with the signature as bytes (ERC-1271 accounts).
    /// @return index the deposit's index
    function depositWithAuthorization(
        address from,
        uint256 amount,
        bytes32 pre,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes calldata signature
    ) external whenNotPaused nonReentrant returns (uint256 index) {
        Authorization memory terms = Authorization(from, amount, pre, value, validAfter, validBefore);
        uint256 before = _beforeAuthorized(terms);
        _receiveSigned(terms, signature);
        return _settleAuthorized(terms, before);
    }

    /// @notice The EIP-3009 nonce of the deposit of `amount` to `pre`:
    /// `keccak256(abi.encode("priv-stark/deposit", amount, pre))`.
    function depositNonce(uint256 amount, bytes32 pre) public pure returns (bytes32) {
        return keccak256(abi.encode(DEPOSIT_NONCE_DOMAIN, amount, pre));
    }

    /// @notice Whether `(amount, pre)` was ever deposited here.
    function isDeposited(uint256 amount, bytes32 pre) external view returns (bool) {
        return _depositKeys[keccak256(abi.encode(amount, pre))];
    }

    /// @notice How many deposits were made (indices are 0 .. count − 1).
    function depositCount() external view returns (uint256) {
        return _deposits.length;
    }

    /// @notice The deposit at `index`.
    function getDeposit(uint256 index) external view returns (Deposit memory) {
        return _depositAt(index);
    }

    // --- acceptance -----------------------------------------------------------------------------

    /// @notice Accepts the deposits at `accepted` (their funds join custody) and declines those at
    /// `declined` (their depositors may reclaim them at once). Each must be Pending, so an index
    /// given twice reverts the whole batch.
    function acceptDeposits(uint256[] calldata accepted, uint256[] calldata declined)
        external
        onlyRole(ACCEPTOR_ROLE)
    {
        uint256 acceptedAmount;
        for (uint256 i = 0; i < accepted.length; ++i) {
            Deposit storage entry = _pendingDeposit(accepted[i]);
            entry.state = DepositState.Accepted;
            acceptedAmount += entry.amount;
            emit Accepted(accepted[i], entry.amount);
        }
        for (uint256 i = 0; i < declined.length; ++i) {
            Deposit storage entry = _pendingDeposit(declined[i]);
            entry.state = DepositState.Declined;
            emit Declined(declined[i], entry.amount);
        }
        custody += acceptedAmount;
        unacceptedTotal -= acceptedAmount;
    }

    // --- reclaim --------------------------------------------------------------------------------

    /// @notice The depositor takes back its deposit at `index`: Declined, or Pending from its
    /// `reclaimableAt`. Never paused.
    function reclaim(uint256 index) external nonReentrant {
        Deposit storage entry = _depositAt(index);
        if (entry.depositor != msg.sender) revert NotDepositor(index, msg.sender);
        _reclaim(index, entry);
    }

    /// @notice Anyone returns the deposit at `index` to its depositor with the depositor's EIP-712
    /// signature of `Reclaim(index, deadline)` (an EOA's, or an ERC-1271 account's). Never paused.
    function reclaimWithSignature(uint256 index, uint256 deadline, bytes calldata signature)
        external
        nonReentrant
    {
        if (block.timestamp > deadline) revert ReclaimSignatureExpired(deadline);
        Deposit storage entry = _depositAt(index);
        bytes32 digest = _hashTypedDataV4(keccak256(abi.encode(RECLAIM_TYPEHASH, index, deadline)));
        if (!SignatureChecker.isValidSignatureNow(entry.depositor, digest, signature)) {
            revert InvalidReclaimSignature(index);
        }
        _reclaim(index, entry);
    }

    // --- payouts --------------------------------------------------------------------------------

    /// @notice Pays `amount` from custody to `to` for the pool's withdrawal `withdrawalId`, once,
    /// by `deadline`, within the rolling 24-hour cap. Refused with two-key payouts
    /// ({UnpaidProofRequired}): then {payoutWithProof}.
    function payout(bytes32 withdrawalId, address to, uint256 amount, uint64 deadline)
        external
        onlyRole(PAYOUT_ROLE)
        whenNotPaused
        nonReentrant
    {
        _requireNoProofNeeded(withdrawalId);
        _payout(withdrawalId, to, amount, deadline);
    }

    /// @notice {payout} with two-key payouts: `proof` shows `(withdrawalId, to, amount)` in the
    /// unpaid set of the latest attestation (TwoKeyPayouts). Refused without the mode.
    function payoutWithProof(
        bytes32 withdrawalId,
        address to,
        uint256 amount,
        uint64 deadline,
        bytes32[] calldata proof
    ) external onlyRole(PAYOUT_ROLE) whenNotPaused nonReentrant {
        _requireUnpaidProof(withdrawalId, to, amount, proof);
        _payout(withdrawalId, to, amount, deadline);
    }

    /// @notice Whether the withdrawal `withdrawalId` was paid out.
    function isPaid(bytes32 withdrawalId) external view returns (bool) {
        return _paid[withdrawalId];
    }

    /// @notice What could be paid out now under the cap.
    function payoutAllowance() external view returns (uint256) {
        return _payoutAllowance(parameter(Parameter.PayoutCapPerDay));
    }

    // --- attestations ----------------------------------------------------------------------------

    /// @notice The operator's claim at checkpoint `seq` (PoolAttestations): `root`, the log digest
    /// after its events, `totals` (deposited, withdrawn, paid out, refunded) and the Merkle root of
    /// the withdrawals not yet paid. Later than the latest, or it reverts.
    function attest(
        uint64 seq,
        bytes32 root,
        bytes32 logDigest,
        uint128[4] calldata totals,
        bytes32 unpaidRoot
    ) external onlyRole(ATTESTER_ROLE) {
        _attest(seq, root, logDigest, totals, unpaidRoot);
    }

    // --- pause and parameters -------------------------------------------------------------------

    /// @notice Stops deposits and payouts (reclaims go on).
    function pause() external onlyRole(PAUSER_ROLE) {
        _pause();
    }

    /// @notice Lets deposits and payouts go on.
    function unpause() external onlyRole(PAUSER_ROLE) {
        _unpause();
    }

    /// @notice Schedules `which` to become `value` after the admin delay ({defaultAdminDelay}).
    function scheduleParameterChange(Parameter which, uint256 value) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _scheduleChange(which, value, defaultAdminDelay());
    }

    /// @notice Cancels the scheduled change of `which`.
    function cancelParameterChange(Parameter which) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _cancelChange(which);
    }

    /// @notice Puts the scheduled change of `which` in force, once its delay has passed.
    function applyParameterChange(Parameter which) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _applyChange(which);
    }

    /// @notice Seconds a Pending deposit made now waits before it may be reclaimed.
    function reclaimDelay() external view returns (uint256) {
        return parameter(Parameter.ReclaimDelay);
    }

    /// @notice The smallest deposit.
    function minDeposit() external view returns (uint256) {
        return parameter(Parameter.MinDeposit);
    }

    /// @notice The most paid out in any 24 hours.
    function payoutCapPerDay() external view returns (uint256) {
        return parameter(Parameter.PayoutCapPerDay);
    }

    // --- internals ------------------------------------------------------------------------------

    function _checkParameter(Parameter which, uint256 value) internal pure override {
        if (which == Parameter.ReclaimDelay) {
            if (value < MIN_RECLAIM_DELAY || value > MAX_RECLAIM_DELAY) revert ReclaimDelayOutOfRange(value);
        } else if (which == Parameter.MinDeposit) {
            if (value == 0 || value >= MAX_AMOUNT_EXCLUSIVE) revert MinDepositOutOfRange(value);
        }
        // PayoutCapPerDay: any value (0 stops payouts, as revoking PAYOUT_ROLE would).
    }

    /// @dev A payout's checks and effects, then the transfer (the callers hold the guards).
    function _payout(bytes32 withdrawalId, address to, uint256 amount, uint64 deadline) private {
        if (block.timestamp > deadline) revert PayoutExpired(withdrawalId, deadline);
        if (_paid[withdrawalId]) revert WithdrawalAlreadyPaid(withdrawalId);
        if (to == address(0) || to == address(this) || to == address(token)) {
            revert InvalidPayoutRecipient(to);
        }
        if (amount == 0) revert ZeroPayout(withdrawalId);
        if (amount > custody) revert PayoutExceedsCustody(amount, custody);
        _consumePayoutAllowance(amount, parameter(Parameter.PayoutCapPerDay));
        _paid[withdrawalId] = true;
        custody -= amount;
        token.safeTransfer(to, amount);
        emit Paid(withdrawalId, to, amount);
    }

    function _checkNewDeposit(uint256 amount, bytes32 pre) private view {
        uint256 minimum = parameter(Parameter.MinDeposit);
        if (amount < minimum) revert DepositBelowMinimum(amount, minimum);
        if (amount >= MAX_AMOUNT_EXCLUSIVE) revert DepositTooLarge(amount);
        if (!CanonicalDigest.isCanonical(pre)) revert NonCanonicalPre(pre);
        if (_depositKeys[keccak256(abi.encode(amount, pre))]) revert DuplicateDeposit(amount, pre);
    }

    /// @dev Checks a gasless deposit's terms; returns the escrow's balance before it.
    function _beforeAuthorized(Authorization memory terms) private view returns (uint256) {
        _checkNewDeposit(terms.amount, terms.pre);
        if (terms.value < terms.amount) revert ValueBelowAmount(terms.value, terms.amount);
        return token.balanceOf(address(this));
    }

    /// @dev The token's `(v, r, s)` receiveWithAuthorization, in a frame of its own (the external
    /// functions' arguments leave no stack for the call).
    function _receiveSigned(Authorization memory terms, uint8 v, bytes32 r, bytes32 s) private {
        IReceiveWithAuthorization(address(token)).receiveWithAuthorization(
            terms.from,
            address(this),
            terms.value,
            terms.validAfter,
            terms.validBefore,
            depositNonce(terms.amount, terms.pre),
            v,
            r,
            s
        );
    }

    /// @dev The token's `bytes` receiveWithAuthorization.
    function _receiveSigned(Authorization memory terms, bytes calldata signature) private {
        IReceiveWithAuthorization(address(token)).receiveWithAuthorization(
            terms.from,
            address(this),
            terms.value,
            terms.validAfter,
            terms.validBefore,
            depositNonce(terms.amount, terms.pre),
            signature
        );
    }

    /// @dev Checks the authorized `value` arrived, pays the relayer its fee, records the deposit.
    function _settleAuthorized(Authorization memory terms, uint256 before) private returns (uint256) {
        _checkReceived(before, terms.value);
        uint256 fee = terms.value - terms.amount;
        if (fee > 0) token.safeTransfer(msg.sender, fee);
        return _record(terms.from, terms.amount, terms.pre, fee);
    }

    /// @dev The escrow's balance rose by exactly `expected` since `before` (no fee-on-transfer).
    function _checkReceived(uint256 before, uint256 expected) private view {
        uint256 afterwards = token.balanceOf(address(this));
        if (afterwards < before || afterwards - before != expected) {
            revert UnexpectedBalanceChange(expected, before, afterwards);
        }
    }

    function _record(address depositor, uint256 amount, bytes32 pre, uint256 fee) private returns (uint256 index) {
        _depositKeys[keccak256(abi.encode(amount, pre))] = true;
        uint40 now_ = uint40(block.timestamp);
        index = _deposits.length;
        _deposits.push(
            Deposit({
                depositor: depositor,
                state: DepositState.Pending,
                depositedAt: now_,
                reclaimableAt: now_ + uint40(parameter(Parameter.ReclaimDelay)),
                amount: uint64(amount),
                pre: pre
            })
        );
        unacceptedTotal += amount;
        emit Deposited(index, depositor, amount, pre, msg.sender, fee);
    }

    function _reclaim(uint256 index, Deposit storage entry) private {
        DepositState state = entry.state;
        if (state == DepositState.Pending) {
            if (block.timestamp < entry.reclaimableAt) revert ReclaimTooEarly(index, entry.reclaimableAt);
        } else if (state != DepositState.Declined) {
            revert DepositNotReclaimable(index, state);
        }
        entry.state = DepositState.Reclaimed;
        uint256 amount = entry.amount;
        unacceptedTotal -= amount;
        token.safeTransfer(entry.depositor, amount);
        emit Reclaimed(index, entry.depositor, amount);
    }

    function _depositAt(uint256 index) private view returns (Deposit storage) {
        if (index >= _deposits.length) revert UnknownDeposit(index);
        return _deposits[index];
    }

    function _pendingDeposit(uint256 index) private view returns (Deposit storage entry) {
        entry = _depositAt(index);
        if (entry.state != DepositState.Pending) revert DepositNotPending(index, entry.state);
    }
}
