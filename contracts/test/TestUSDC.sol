// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

import {EIP3009Authorizations} from "./EIP3009Authorizations.sol";

/// @title A test stand-in for USDC (FiatTokenV2_2) on a local chain — never deployed elsewhere
/// @notice An ERC-20 of 6 decimals with USDC's rules where the escrow and the pool node meet
/// them: EIP-3009 (see {EIP3009Authorizations}), a blacklist (a blacklisted account can neither
/// send, receive, approve nor be the authorizer or payee of an authorization), a pause (no
/// transfer, approval, authorization or mint while paused), minting by the owner, and FiatToken's
/// revert strings ("Blacklistable: account is blacklisted", "Pausable: paused", …). The EIP-712
/// name (also the token's name) and version are the constructor's: Base's USDC is "USD Coin", "2".
contract TestUSDC is Ownable, EIP3009Authorizations {
    /// @notice The token's name, also its EIP-712 domain name.
    string public name;
    /// @notice The token's symbol.
    string public symbol;
    /// @notice USDC's decimals.
    uint8 public constant decimals = 6;
    /// @notice Whether transfers, approvals, authorizations and mints are stopped.
    bool public paused;

    string private _version;
    uint256 private _totalSupply;
    mapping(address => uint256) private _balances;
    mapping(address => mapping(address => uint256)) private _allowances;
    mapping(address => bool) private _blacklisted;

    /// @notice ERC-20.
    event Transfer(address indexed from, address indexed to, uint256 value);
    /// @notice ERC-20.
    event Approval(address indexed owner, address indexed spender, uint256 value);
    /// @notice FiatToken's mint event.
    event Mint(address indexed minter, address indexed to, uint256 amount);
    /// @notice `account` was blacklisted.
    event Blacklisted(address indexed account);
    /// @notice `account` was taken off the blacklist.
    event UnBlacklisted(address indexed account);
    /// @notice The token was paused.
    event Pause();
    /// @notice The token was unpaused.
    event Unpause();

    modifier whenNotPaused() {
        require(!paused, "Pausable: paused");
        _;
    }

    modifier notBlacklisted(address account) {
        require(!_blacklisted[account], "Blacklistable: account is blacklisted");
        _;
    }

    /// @param name_ the token's name and EIP-712 domain name ("USD Coin" on Base)
    /// @param symbol_ the token's symbol
    /// @param version_ the EIP-712 domain version ("2" on Base)
    /// @param owner_ who mints, blacklists and pauses
    constructor(string memory name_, string memory symbol_, string memory version_, address owner_)
        Ownable(owner_)
        EIP3009Authorizations(name_, version_)
    {
        name = name_;
        symbol = symbol_;
        _version = version_;
    }

    // --- ERC-20 ---------------------------------------------------------------------------------

    /// @notice The EIP-712 domain version.
    function version() external view returns (string memory) {
        return _version;
    }

    /// @notice ERC-20.
    function totalSupply() external view returns (uint256) {
        return _totalSupply;
    }

    /// @notice ERC-20.
    function balanceOf(address account) external view returns (uint256) {
        return _balances[account];
    }

    /// @notice ERC-20.
    function allowance(address owner, address spender) external view returns (uint256) {
        return _allowances[owner][spender];
    }

    /// @notice ERC-20.
    function approve(address spender, uint256 value)
        external
        whenNotPaused
        notBlacklisted(msg.sender)
        notBlacklisted(spender)
        returns (bool)
    {
        require(spender != address(0), "ERC20: approve to the zero address");
        _allowances[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    /// @notice ERC-20.
    function transfer(address to, uint256 value)
        external
        whenNotPaused
        notBlacklisted(msg.sender)
        notBlacklisted(to)
        returns (bool)
    {
        _transfer(msg.sender, to, value);
        return true;
    }

    /// @notice ERC-20.
    function transferFrom(address from, address to, uint256 value)
        external
        whenNotPaused
        notBlacklisted(msg.sender)
        notBlacklisted(from)
        notBlacklisted(to)
        returns (bool)
    {
        uint256 allowed = _allowances[from][msg.sender];
        require(value <= allowed, "ERC20: transfer amount exceeds allowance");
        _allowances[from][msg.sender] = allowed - value;
        _transfer(from, to, value);
        return true;
    }

    // --- EIP-3009 -------------------------------------------------------------------------------

    /// @notice Moves `value` from `from` to `to` with `from`'s signed authorization (anyone may
    /// submit it).
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external whenNotPaused notBlacklisted(from) notBlacklisted(to) {
        _spendAuthorization(
            TRANSFER_WITH_AUTHORIZATION_TYPEHASH,
            from,
            to,
            value,
            validAfter,
            validBefore,
            nonce,
            abi.encodePacked(r, s, v)
        );
    }

    /// @notice {transferWithAuthorization} with the signature as bytes.
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external whenNotPaused notBlacklisted(from) notBlacklisted(to) {
        _spendAuthorization(
            TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, signature
        );
    }

    /// @notice Moves `value` from `from` to the caller, who must be `to`, with `from`'s signed
    /// authorization.
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
    ) external whenNotPaused notBlacklisted(from) notBlacklisted(to) {
        require(to == msg.sender, "FiatTokenV2: caller must be the payee");
        _spendAuthorization(
            RECEIVE_WITH_AUTHORIZATION_TYPEHASH,
            from,
            to,
            value,
            validAfter,
            validBefore,
            nonce,
            abi.encodePacked(r, s, v)
        );
    }

    /// @notice {receiveWithAuthorization} with the signature as bytes.
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external whenNotPaused notBlacklisted(from) notBlacklisted(to) {
        require(to == msg.sender, "FiatTokenV2: caller must be the payee");
        _spendAuthorization(
            RECEIVE_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, signature
        );
    }

    /// @notice Cancels `authorizer`'s unused `nonce` with its signature.
    function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)
        external
        whenNotPaused
    {
        _cancel(authorizer, nonce, abi.encodePacked(r, s, v));
    }

    /// @notice {cancelAuthorization} with the signature as bytes.
    function cancelAuthorization(address authorizer, bytes32 nonce, bytes memory signature)
        external
        whenNotPaused
    {
        _cancel(authorizer, nonce, signature);
    }

    // --- the owner's --------------------------------------------------------------------------

    /// @notice Creates `amount` for `to`.
    function mint(address to, uint256 amount) external onlyOwner whenNotPaused notBlacklisted(to) returns (bool) {
        require(to != address(0), "FiatToken: mint to the zero address");
        require(amount > 0, "FiatToken: mint amount not greater than 0");
        _totalSupply += amount;
        _balances[to] += amount;
        emit Mint(msg.sender, to, amount);
        emit Transfer(address(0), to, amount);
        return true;
    }

    /// @notice Whether `account` is blacklisted.
    function isBlacklisted(address account) external view returns (bool) {
        return _blacklisted[account];
    }

    /// @notice Blacklists `account`.
    function blacklist(address account) external onlyOwner {
        _blacklisted[account] = true;
        emit Blacklisted(account);
    }

    /// @notice Takes `account` off the blacklist.
    function unBlacklist(address account) external onlyOwner {
        _blacklisted[account] = false;
        emit UnBlacklisted(account);
    }

    /// @notice Stops transfers, approvals, authorizations and mints.
    function pause() external onlyOwner {
        paused = true;
        emit Pause();
    }

    /// @notice Lets them go on.
    function unpause() external onlyOwner {
        paused = false;
        emit Unpause();
    }

    function _transfer(address from, address to, uint256 value) internal override {
        require(from != address(0), "ERC20: transfer from the zero address");
        require(to != address(0), "ERC20: transfer to the zero address");
        uint256 balance = _balances[from];
        require(value <= balance, "ERC20: transfer amount exceeds balance");
        _balances[from] = balance - value;
        _balances[to] += value;
        emit Transfer(from, to, value);
    }
}
