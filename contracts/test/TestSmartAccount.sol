// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @title A minimal smart account (test only)
/// @notice Makes calls for its owner and accepts, under ERC-1271, the signatures its owner's key
/// makes: a depositor that is a contract, as a smart wallet on Base would be.
contract TestSmartAccount is IERC1271 {
    /// @notice The key that controls the account.
    address public immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    /// @notice Calls `target` with `data` on the owner's behalf; a revert bubbles up.
    function execute(address target, bytes calldata data) external returns (bytes memory) {
        require(msg.sender == owner, "not the owner");
        (bool ok, bytes memory returned) = target.call(data);
        if (!ok) {
            assembly ("memory-safe") {
                revert(add(returned, 0x20), mload(returned))
            }
        }
        return returned;
    }

    /// @inheritdoc IERC1271
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        (address signer, ECDSA.RecoverError failure,) = ECDSA.tryRecover(hash, signature);
        return failure == ECDSA.RecoverError.NoError && signer == owner ? this.isValidSignature.selector : bytes4(0xffffffff);
    }
}
