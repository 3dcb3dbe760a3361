// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";

/// @title EIP-3009 authorizations with USDC's rules (test only)
/// @notice FiatTokenV2_2's rules, reproduced for the tests: per-authorizer
/// random nonces (used or cancelled once), a strict validity window
/// (`validAfter < block.timestamp < validBefore`), `receiveWithAuthorization` only by the payee,
/// `cancelAuthorization` of an unused nonce, and signatures checked with SignatureChecker (EOAs
/// and ERC-1271 accounts), the `(v, r, s)` forms packed as `r ‖ s ‖ v`. Revert reasons are
/// FiatToken's strings, so code that reads them reads USDC's. The EIP-712 domain is
/// `(name, version, chainId, verifyingContract)`, computed for the chain it runs on.
abstract contract EIP3009Authorizations {
    /// @notice keccak256("TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)")
    bytes32 public constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
    /// @notice keccak256("ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)")
    bytes32 public constant RECEIVE_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
    /// @notice keccak256("CancelAuthorization(address authorizer,bytes32 nonce)")
    bytes32 public constant CANCEL_AUTHORIZATION_TYPEHASH =
        keccak256("CancelAuthorization(address authorizer,bytes32 nonce)");

    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");

    bytes32 private immutable _nameHash;
    bytes32 private immutable _versionHash;
    mapping(address authorizer => mapping(bytes32 nonce => bool)) private _authorizationStates;

    /// @notice `authorizer`'s `nonce` was spent by a transfer.
    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);
    /// @notice `authorizer`'s `nonce` was cancelled.
    event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce);

    constructor(string memory eip712Name, string memory eip712Version) {
        _nameHash = keccak256(bytes(eip712Name));
        _versionHash = keccak256(bytes(eip712Version));
    }

    /// @notice The EIP-712 domain separator of this token on this chain.
    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, _nameHash, _versionHash, block.chainid, address(this)));
    }

    /// @notice Whether `authorizer`'s `nonce` was used or cancelled.
    function authorizationState(address authorizer, bytes32 nonce) external view returns (bool) {
        return _authorizationStates[authorizer][nonce];
    }

    /// @dev Moves the ERC-20 balance (the token's own rules apply there).
    function _transfer(address from, address to, uint256 value) internal virtual;

    /// @dev Spends `from`'s authorization of type `typehash` (transfer or receive) and moves
    /// `value` to `to`; the public functions add the pause, blacklist and payee checks.
    function _spendAuthorization(
        bytes32 typehash,
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) internal {
        require(block.timestamp > validAfter, "FiatTokenV2: authorization is not yet valid");
        require(block.timestamp < validBefore, "FiatTokenV2: authorization is expired");
        _checkUnused(from, nonce);
        _checkSigned(from, keccak256(abi.encode(typehash, from, to, value, validAfter, validBefore, nonce)), signature);
        _authorizationStates[from][nonce] = true;
        emit AuthorizationUsed(from, nonce);
        _transfer(from, to, value);
    }

    /// @dev Cancels `authorizer`'s unused `nonce` with its signature.
    function _cancel(address authorizer, bytes32 nonce, bytes memory signature) internal {
        _checkUnused(authorizer, nonce);
        _checkSigned(authorizer, keccak256(abi.encode(CANCEL_AUTHORIZATION_TYPEHASH, authorizer, nonce)), signature);
        _authorizationStates[authorizer][nonce] = true;
        emit AuthorizationCanceled(authorizer, nonce);
    }

    function _checkSigned(address signer, bytes32 structHash, bytes memory signature) private view {
        bytes32 digest = MessageHashUtils.toTypedDataHash(DOMAIN_SEPARATOR(), structHash);
        require(SignatureChecker.isValidSignatureNow(signer, digest, signature), "FiatTokenV2: invalid signature");
    }

    function _checkUnused(address authorizer, bytes32 nonce) private view {
        require(!_authorizationStates[authorizer][nonce], "FiatTokenV2: authorization is used or canceled");
    }
}
