// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

/// @title The operator's attestations of the pool's public log
/// @notice An attestation is the operator's claim, at one of the pool's checkpoints, of that
/// checkpoint's root, the log digest after its events (docs/audit.md, "Log digest"), the Merkle
/// root of the withdrawals not yet paid, and the log's totals. This contract orders and keeps the
/// claims — each later than the one before, never replaced — and checks none of them: the audit
/// recomputes each from the public log and the chain, so a false claim becomes public,
/// attributable evidence (the attester's address is in the event).
///
/// Cost: three slots for the latest attestation (sequence and time; root; log digest) plus one
/// for the unpaid root and two for the totals; the full claim is in the event.
abstract contract PoolAttestations {
    /// @notice An attestation. `totals` are, in order, deposited, withdrawn, paid out and refunded
    /// (atomic units); `attestedAt` is the block's timestamp.
    struct Attestation {
        uint64 seq;
        uint40 attestedAt;
        bytes32 root;
        bytes32 logDigest;
        bytes32 unpaidRoot;
        uint128[4] totals;
    }

    Attestation private _latestAttestation;

    /// @notice `attester` claimed, at checkpoint `seq`, its `root`, the `logDigest` after its
    /// events, the root of the unpaid withdrawals and the totals.
    event Attested(
        uint64 indexed seq,
        address indexed attester,
        bytes32 root,
        bytes32 logDigest,
        bytes32 unpaidRoot,
        uint128[4] totals
    );

    /// @notice An attestation must be of a later checkpoint than the latest (`latestSeq`).
    error AttestationNotNewer(uint64 seq, uint64 latestSeq);

    /// @notice The latest attestation (all zero before the first).
    function latestAttestation() external view returns (Attestation memory) {
        return _latestAttestation;
    }

    /// @dev The latest attestation's sequence (0 before the first) and unpaid root.
    function _latestUnpaidRoot() internal view returns (uint64 seq, bytes32 unpaidRoot) {
        return (_latestAttestation.seq, _latestAttestation.unpaidRoot);
    }

    /// @dev Records an attestation later than the latest, or reverts with {AttestationNotNewer}.
    function _attest(
        uint64 seq,
        bytes32 root,
        bytes32 logDigest,
        uint128[4] calldata totals,
        bytes32 unpaidRoot
    ) internal {
        uint64 latestSeq = _latestAttestation.seq;
        if (seq <= latestSeq) revert AttestationNotNewer(seq, latestSeq);
        _latestAttestation = Attestation({
            seq: seq,
            attestedAt: uint40(block.timestamp),
            root: root,
            logDigest: logDigest,
            unpaidRoot: unpaidRoot,
            totals: totals
        });
        emit Attested(seq, msg.sender, root, logDigest, unpaidRoot, totals);
    }
}
