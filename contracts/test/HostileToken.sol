// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

/// @title A hostile token (test only)
/// @notice A bare ERC-20 with `receiveWithAuthorization` (no signature check: the point is what
/// it does while moving funds, not the authorization), misbehaving two ways on demand:
/// * armed with a target and calldata, its next transfer of any kind first makes that call — say,
///   another deposit, a reclaim or a payout on the escrow — and bubbles up its revert, so a test
///   sees exactly why the escrow refused to be re-entered (disarmed before the call: it runs once);
/// * with a skim set, every transfer delivers that much less than it was asked to (a
///   fee-on-transfer token), which the escrow must notice.
contract HostileToken {
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    address private _target;
    bytes private _attack;
    uint256 private _skim;

    /// @notice ERC-20.
    event Transfer(address indexed from, address indexed to, uint256 value);

    /// @notice Anyone may mint: it is a test token.
    function mint(address to, uint256 amount) external {
        balanceOf[to] += amount;
        emit Transfer(address(0), to, amount);
    }

    /// @notice The next transfer first calls `target` with `attack`.
    function arm(address target, bytes calldata attack) external {
        _target = target;
        _attack = attack;
    }

    /// @notice Every later transfer delivers `amount` less than asked.
    function setSkim(uint256 amount) external {
        _skim = amount;
    }

    /// @notice ERC-20.
    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        return true;
    }

    /// @notice ERC-20.
    function transfer(address to, uint256 value) external returns (bool) {
        _move(msg.sender, to, value);
        return true;
    }

    /// @notice ERC-20.
    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        allowance[from][msg.sender] -= value;
        _move(from, to, value);
        return true;
    }

    /// @notice EIP-3009's payee-only pull, without the signature check.
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256,
        uint256,
        bytes32,
        uint8,
        bytes32,
        bytes32
    ) external {
        require(to == msg.sender, "caller must be the payee");
        _move(from, to, value);
    }

    /// @notice The same, `bytes` form.
    function receiveWithAuthorization(address from, address to, uint256 value, uint256, uint256, bytes32, bytes calldata)
        external
    {
        require(to == msg.sender, "caller must be the payee");
        _move(from, to, value);
    }

    function _move(address from, address to, uint256 value) private {
        address target = _target;
        if (target != address(0)) {
            bytes memory attack = _attack;
            delete _target;
            delete _attack;
            (bool ok, bytes memory returned) = target.call(attack);
            if (!ok) {
                assembly ("memory-safe") {
                    revert(add(returned, 0x20), mload(returned))
                }
            }
        }
        balanceOf[from] -= value;
        balanceOf[to] += value - _skim;
        emit Transfer(from, to, value - _skim);
    }
}
