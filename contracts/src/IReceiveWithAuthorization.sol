// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

/// @title The part of EIP-3009 the escrow calls
/// @notice `receiveWithAuthorization` as USDC's FiatTokenV2_2 has it: the payee (`to`) must be
/// the caller, so a signed authorization to the escrow can only be spent by the escrow, and both
/// the `(v, r, s)` form and the `bytes` form (ERC-1271 smart accounts) are offered.
interface IReceiveWithAuthorization {
    /// @notice Moves `value` from `from` to `to` (the caller) with `from`'s EIP-712 signature of
    /// `ReceiveWithAuthorization(from, to, value, validAfter, validBefore, nonce)`.
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external;

    /// @notice The same with the signature as bytes (`r ‖ s ‖ v` for an EOA, anything an
    /// ERC-1271 account accepts otherwise).
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external;
}
