// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {MerkleProof} from "@openzeppelin/contracts/utils/cryptography/MerkleProof.sol";

import {PoolAttestations} from "./PoolAttestations.sol";

/// @title Two-key payouts: a payout must be in the latest attestation's unpaid set
/// @notice Chosen at deployment and never changed ({twoKeyPayouts}, announced by
/// {TwoKeyPayoutsMode} in the deployment's receipt). In this mode a payout carries an inclusion
/// proof of its leaf — `keccak256(keccak256(abi.encode(withdrawalId, to, amount)))`, OpenZeppelin's
/// standard leaf — under the `unpaidRoot` of the latest attestation, with sorted-pair hashing
/// (`MerkleProof`). So the payout key alone cannot invent a withdrawal: the withdrawal must first
/// be claimed unpaid by the attester key. A proof against any older root fails: an attestation
/// that drops a withdrawal (paid, refunded) withdraws the authority to pay it.
///
/// Cost: no storage of its own (the flag is in the code); a proof reads one slot and hashes
/// `log2(unpaid)` pairs.
abstract contract TwoKeyPayouts is PoolAttestations {
    /// @notice Whether payouts need an inclusion proof under the latest attestation's unpaid root.
    bool public immutable twoKeyPayouts;

    /// @notice The payout mode, emitted once by the constructor (an auditor reads it there too).
    event TwoKeyPayoutsMode(bool enabled);

    /// @notice Two-key mode: `payout` without a proof is refused; use `payoutWithProof`.
    error UnpaidProofRequired(bytes32 withdrawalId);
    /// @notice `payoutWithProof` on an escrow deployed without two-key payouts.
    error TwoKeyPayoutsDisabled();
    /// @notice No attestation yet: there is no unpaid set to prove against.
    error NoAttestedUnpaidSet(bytes32 withdrawalId);
    /// @notice The proof does not show `(withdrawalId, to, amount)` under the latest unpaid root
    /// (attested at `seq`).
    error UnpaidProofInvalid(bytes32 withdrawalId, uint64 seq, bytes32 unpaidRoot);

    constructor(bool enabled) {
        twoKeyPayouts = enabled;
        emit TwoKeyPayoutsMode(enabled);
    }

    /// @dev The plain payout's gate: allowed only without two-key payouts.
    function _requireNoProofNeeded(bytes32 withdrawalId) internal view {
        if (twoKeyPayouts) revert UnpaidProofRequired(withdrawalId);
    }

    /// @dev The proven payout's gate: two-key mode on, and the leaf under the latest unpaid root.
    function _requireUnpaidProof(bytes32 withdrawalId, address to, uint256 amount, bytes32[] calldata proof)
        internal
        view
    {
        if (!twoKeyPayouts) revert TwoKeyPayoutsDisabled();
        (uint64 seq, bytes32 root) = _latestUnpaidRoot();
        if (seq == 0) revert NoAttestedUnpaidSet(withdrawalId);
        bytes32 leaf = keccak256(bytes.concat(keccak256(abi.encode(withdrawalId, to, amount))));
        if (!MerkleProof.verifyCalldata(proof, root, leaf)) {
            revert UnpaidProofInvalid(withdrawalId, seq, root);
        }
    }
}
