// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

/// @title Parameters changed by schedule-then-apply
/// @notice The escrow's three parameters. A change is scheduled with the delay in force (the
/// escrow passes its admin delay), may be cancelled, and is applied only once that delay has
/// passed, so everyone who watches the events sees a change coming before it takes effect. One
/// change per parameter is scheduled at a time: a second is refused until the first is applied
/// or cancelled.
abstract contract DelayedParameters {
    /// @notice The parameters.
    /// @custom:value ReclaimDelay seconds a depositor waits before reclaiming a deposit left
    /// Pending (taken at each deposit: a change applies to later deposits only)
    /// @custom:value MinDeposit the smallest amount accepted as a deposit (atomic units)
    /// @custom:value PayoutCapPerDay the most paid out in any 24 hours (atomic units)
    enum Parameter {
        ReclaimDelay,
        MinDeposit,
        PayoutCapPerDay
    }

    /// @notice A scheduled change: the value, and when it may be applied (0: none scheduled).
    struct ScheduledChange {
        uint256 value;
        uint48 effectiveAt;
    }

    mapping(Parameter => uint256) private _values;
    mapping(Parameter => ScheduledChange) private _scheduled;

    /// @notice `parameter` will become `value` once applied at or after `effectiveAt`.
    event ParameterChangeScheduled(Parameter indexed parameter, uint256 value, uint48 effectiveAt);
    /// @notice The scheduled change of `parameter` to `value` was cancelled.
    event ParameterChangeCancelled(Parameter indexed parameter, uint256 value);
    /// @notice `parameter` is now `value` (emitted for every parameter at deployment too).
    event ParameterChanged(Parameter indexed parameter, uint256 previous, uint256 value);

    /// @notice A change of `parameter` is already scheduled (cancel it first).
    error ParameterChangeAlreadyScheduled(Parameter parameter, uint256 value, uint48 effectiveAt);
    /// @notice No change of `parameter` is scheduled.
    error NoParameterChangeScheduled(Parameter parameter);
    /// @notice The change of `parameter` may be applied only from `effectiveAt`.
    error ParameterChangeNotReady(Parameter parameter, uint48 effectiveAt);

    /// @notice The value of `parameter` in force.
    function parameter(Parameter which) public view returns (uint256) {
        return _values[which];
    }

    /// @notice The change of `which` scheduled, if any (`effectiveAt` 0: none).
    function scheduledChange(Parameter which) external view returns (ScheduledChange memory) {
        return _scheduled[which];
    }

    /// @dev Sets a parameter's first value (constructor only), checked like any change.
    function _initParameter(Parameter which, uint256 value) internal {
        _checkParameter(which, value);
        _values[which] = value;
        emit ParameterChanged(which, 0, value);
    }

    /// @dev Schedules `which` to become `value` after `delay` seconds.
    function _scheduleChange(Parameter which, uint256 value, uint48 delay) internal {
        ScheduledChange memory pending = _scheduled[which];
        if (pending.effectiveAt != 0) {
            revert ParameterChangeAlreadyScheduled(which, pending.value, pending.effectiveAt);
        }
        _checkParameter(which, value);
        uint48 effectiveAt = uint48(block.timestamp) + delay;
        _scheduled[which] = ScheduledChange(value, effectiveAt);
        emit ParameterChangeScheduled(which, value, effectiveAt);
    }

    /// @dev Drops the scheduled change of `which`.
    function _cancelChange(Parameter which) internal {
        ScheduledChange memory pending = _requireScheduled(which);
        delete _scheduled[which];
        emit ParameterChangeCancelled(which, pending.value);
    }

    /// @dev Puts the scheduled change of `which` in force once its time has come.
    function _applyChange(Parameter which) internal {
        ScheduledChange memory pending = _requireScheduled(which);
        if (block.timestamp < pending.effectiveAt) {
            revert ParameterChangeNotReady(which, pending.effectiveAt);
        }
        delete _scheduled[which];
        uint256 previous = _values[which];
        _values[which] = pending.value;
        emit ParameterChanged(which, previous, pending.value);
    }

    /// @dev Reverts with the parameter's own error when `value` is out of its range.
    function _checkParameter(Parameter which, uint256 value) internal view virtual;

    function _requireScheduled(Parameter which) private view returns (ScheduledChange memory pending) {
        pending = _scheduled[which];
        if (pending.effectiveAt == 0) revert NoParameterChangeScheduled(which);
    }
}
