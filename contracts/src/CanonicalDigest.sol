// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

/// @title The canonical encoding of a priv-stark digest
/// @notice A digest is four Goldilocks field elements written as 32 bytes: element `i` is bytes
/// `8i .. 8i+7`, little-endian (the core's `Digest::to_bytes`, and the `0x` + 64 hex digits of
/// the wire read as a `bytes32` in the same byte order). An encoding is canonical when every
/// element is below the Goldilocks modulus p = 2^64 − 2^32 + 1; the core refuses any other, so
/// one value has one encoding and a deposit's `pre` is one the pool can shield.
library CanonicalDigest {
    /// @notice Whether each little-endian 64-bit limb of `digest` is below p.
    function isCanonical(bytes32 digest) internal pure returns (bool) {
        uint256 word = uint256(digest);
        for (uint256 i = 0; i < 4; ++i) {
            // Limb i's eight bytes as they sit in the word (big-endian). The limb is their
            // little-endian value, so its high 32 bits are this chunk's low 32 bits (in reverse
            // byte order, which does not matter for the tests below).
            uint64 chunk = uint64(word >> (192 - 64 * i));
            // limb ≥ p  ⇔  its high half is 0xffffffff and its low half is not zero.
            if (uint32(chunk) == type(uint32).max && (chunk >> 32) != 0) return false;
        }
        return true;
    }
}
