#!/usr/bin/env python3
# The log digest's test vectors (docs/audit.md), computed apart from the TypeScript encoder with
# Python's struct and hashlib from the spec's table alone: `python3 test/audit/log-digest-vectors.py`
# prints the JSON that test/audit/log-digest.test.ts holds. Not run by CI; rerun when the spec moves.
import hashlib, json, struct

def d(n): return "0x" + format(n, "064x")
def digest(h): return bytes.fromhex(h[2:])
def u64(v): return struct.pack(">Q", v)
def u128(s): v = int(s); return struct.pack(">QQ", v >> 64, v & (2**64 - 1))
def text(s): b = s.encode("utf-8"); return struct.pack(">I", len(b)) + b
TAGS = {"deposit": 1, "settlement": 2, "transition": 3, "withdrawal": 4, "refund": 5}

def pair(e):
    return (b"".join(digest(x) for x in e["nullifiers"]) + b"".join(digest(x) for x in e["outputs"])
            + b"".join(u64(x) for x in e["outputIndexes"]) + b"".join(text(x) for x in e["memo"]))

def encode(e):
    head = bytes([1, TAGS[e["kind"]]]) + u64(e["id"]) + u64(e["time"])
    k = e["kind"]
    if k == "deposit": body = u128(e["amount"]) + digest(e["commitment"]) + u64(e["index"])
    elif k == "settlement":
        body = (digest(e["settlementId"]) + digest(e["nullifier"]) + digest(e["change"]) + u64(e["changeIndex"])
                + text(e["recipient"]) + u128(e["amount"]) + digest(e["recipientNote"]) + u64(e["recipientIndex"]))
    elif k == "transition": body = digest(e["transitionId"]) + pair(e)
    elif k == "withdrawal":
        body = digest(e["withdrawalId"]) + pair(e) + u128(e["amount"]) + text(e["destination"]) + digest(e["refund"])
    else: body = digest(e["withdrawalId"]) + digest(e["nullifier"]) + u128(e["amount"]) + digest(e["commitment"]) + u64(e["index"])
    return head + body

T = 1_764_300_000_000
events = [
    {"id": 1, "kind": "deposit", "time": T, "amount": "1000000", "commitment": d(0xc1), "index": 0},
    {"id": 2, "kind": "settlement", "time": T + 60_000, "settlementId": d(0x51), "nullifier": d(0xa1),
     "change": d(0xc2), "changeIndex": 1, "recipient": "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
     "amount": "10000", "recipientNote": d(0xc3), "recipientIndex": 2},
    {"id": 3, "kind": "transition", "time": T + 60_000, "transitionId": d(0x71), "nullifiers": [d(0xa2), d(0xa3)],
     "outputs": [d(0xc4), d(0xc5)], "outputIndexes": [3, 4], "memo": ["", "é"]},
    {"id": 4, "kind": "withdrawal", "time": T + 120_000, "withdrawalId": d(0x77), "nullifiers": [d(0xa4), d(0xa5)],
     "outputs": [d(0xc6), d(0xc7)], "outputIndexes": [5, 6], "memo": ["", ""], "amount": str(2**128 - 1),
     "destination": "eip155:84532:0x209693Bc6afc0C5328bA36FaF03C514EF312287C", "refund": d(0xc8)},
    {"id": 5, "kind": "refund", "time": T + 180_000, "withdrawalId": d(0x77), "nullifier": d(0xa4), "amount": "7",
     "commitment": d(0xc8), "index": 7},
]
proofs = [None, b"proof of the settlement", b"proof of the transition", b"proof of the withdrawal", None]
chain, links = bytes(32), []
for e, p in zip(events, proofs):
    ph = bytes(32) if p is None else hashlib.sha256(p).digest()
    chain = hashlib.sha256(chain + encode(e) + ph).digest()
    links.append({"encoded": encode(e).hex(), "digest": "0x" + chain.hex()})
print(json.dumps({"events": events, "links": links}, indent=1))
