// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";

/// @title A cap on what is paid out in any 24 hours
/// @notice Payouts are counted in hourly buckets. A payout is allowed when it, plus everything
/// paid in the current hour and the 24 hours before it (25 buckets), stays within the cap. Any
/// interval of 24 hours (86,400 s) lies within the 25 buckets seen by its last payout, so the
/// guarantee is exact: no 24-hour interval ever sees more than the cap paid out. The price is
/// that a payout counts against the cap for between 24 and 25 hours rather than exactly 24.
///
/// Cost: one slot for the window (its hour, which buckets hold payouts of the window, their
/// total) and one per bucket. Moving the window reads only the buckets that leave it and hold
/// something, so a payout reads at most 25 of them, and amortised one.
abstract contract RollingPayoutCap {
    /// @dev Buckets in the window: the current hour and the 24 before it.
    uint256 private constant BUCKETS = 25;

    /// @dev The window as of its latest hour: which buckets hold payouts of that window (bit per
    /// bucket) and their total.
    struct Window {
        uint64 hour;
        uint32 occupied;
        uint160 total;
    }

    Window private _window;
    /// @dev What was paid in the hour `h`, at `h % BUCKETS`, meaningful while its bit is set.
    uint256[BUCKETS] private _buckets;

    /// @notice Paying `amount` now would exceed the cap: only `available` can be paid until older
    /// payouts leave the window.
    error PayoutCapExceeded(uint256 amount, uint256 available);

    /// @dev Counts `amount` against `cap`, or reverts with {PayoutCapExceeded}.
    function _consumePayoutAllowance(uint256 amount, uint256 cap) internal {
        uint64 hour = _currentHour();
        Window memory window = _windowAt(hour);
        uint256 available = cap > window.total ? cap - window.total : 0;
        if (amount > available) revert PayoutCapExceeded(amount, available);
        uint256 slot = hour % BUCKETS;
        uint32 bit = uint32(1 << slot);
        if (window.occupied & bit != 0) {
            _buckets[slot] += amount;
        } else {
            _buckets[slot] = amount;
            window.occupied |= bit;
        }
        window.total = SafeCast.toUint160(window.total + amount);
        _window = window;
    }

    /// @dev What could be paid out now under `cap`.
    function _payoutAllowance(uint256 cap) internal view returns (uint256) {
        Window memory window = _windowAt(_currentHour());
        return cap > window.total ? cap - window.total : 0;
    }

    /// @dev The window moved forward to `hour`: each hour stepped into drops the bucket of the
    /// hour 25 before it (the one that leaves the window), if that bucket held anything.
    function _windowAt(uint64 hour) private view returns (Window memory window) {
        window = _window;
        if (hour == window.hour) return window;
        if (hour - window.hour >= BUCKETS) return Window(hour, 0, 0);
        for (uint64 h = window.hour + 1; h <= hour; ++h) {
            uint256 slot = h % BUCKETS;
            uint32 bit = uint32(1 << slot);
            if (window.occupied & bit != 0) {
                window.total -= uint160(_buckets[slot]);
                window.occupied &= ~bit;
            }
        }
        window.hour = hour;
    }

    function _currentHour() private view returns (uint64) {
        return uint64(block.timestamp / 1 hours);
    }
}
