#!/usr/bin/env python3
"""An auditor's verifier of tokenctl's transparency log, written from the public formats
alone (C2SP signed-note, tlog-checkpoint, tlog-proof, tlog-cosignature; RFC 9162) with
Python's hashlib and the cryptography package: it shares no code with tokenctl.

  tlog-verify.py note VKEY NOTE_FILE                  the signed note's Ed25519 signature (signed-note)
  tlog-verify.py inclusion VKEY PROOF_FILE LEAF_FILE  a C2SP tlog-proof of the leaf data in LEAF_FILE
  tlog-verify.py consistency VKEY OLD NEW PROOF_FILE  RFC 9162 2.1.4.2 from checkpoint OLD to NEW
  tlog-verify.py cosignature WVKEY NOTE_FILE          a witness's cosignature/v1 line on the checkpoint

Prints "ok" and exits 0, or prints why and exits 1.
"""
import base64, hashlib, struct, sys
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey


def fail(why):
    print(why)
    sys.exit(1)


def verifier(vkey):
    name, key_hash, key = vkey.split("+", 2)
    raw = base64.b64decode(key)
    if raw[0] != 1:
        fail("not an Ed25519 verifier key")
    if hashlib.sha256(name.encode() + b"\n" + raw).digest()[:4] != bytes.fromhex(key_hash):
        fail("the key hash does not match")
    return name, bytes.fromhex(key_hash), Ed25519PublicKey.from_public_bytes(raw[1:])


def open_note(vkey, data):
    name, key_hash, key = verifier(vkey)
    text, _, signatures = data.rpartition("\n\n")
    text += "\n"
    for line in signatures.splitlines():
        prefix = "\u2014 " + name + " "
        if line.startswith(prefix):
            signature = base64.b64decode(line[len(prefix):])
            if signature[:4] == key_hash:
                key.verify(signature[4:], text.encode())
                return text
    fail("no signature by " + name)


def checkpoint(text):
    origin, size, root = text.split("\n")[:3]
    return origin, int(size), base64.b64decode(root)


def node(left, right):
    return hashlib.sha256(b"\x01" + left + right).digest()


def inclusion_root(index, size, leaf_hash, proof):
    # RFC 9162 2.1.3.2.
    if index >= size:
        fail("index past the tree")
    fn, sn, r = index, size - 1, leaf_hash
    for p in proof:
        if sn == 0:
            fail("proof too long")
        if fn % 2 == 1 or fn == sn:
            r = node(p, r)
            if fn % 2 == 0:
                while fn % 2 == 0 and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            r = node(r, p)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        fail("proof too short")
    return r


def consistency_ok(size1, size2, root1, root2, proof):
    # RFC 9162 2.1.4.2; every tree extends the empty one, which proves nothing.
    if size1 < 1 or size2 < size1:
        return False
    if size1 == size2:
        return not proof and root1 == root2
    if size1 & (size1 - 1) == 0:
        proof = [root1] + proof
    fn, sn = size1 - 1, size2 - 1
    while fn % 2 == 1:
        fn >>= 1
        sn >>= 1
    fr = sr = proof[0]
    for c in proof[1:]:
        if sn == 0:
            return False
        if fn % 2 == 1 or fn == sn:
            fr, sr = node(c, fr), node(c, sr)
            if fn % 2 == 0:
                while fn % 2 == 0 and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            sr = node(sr, c)
        fn >>= 1
        sn >>= 1
    return fr == root1 and sr == root2 and sn == 0


def main():
    command, vkey = sys.argv[1], sys.argv[2]
    if command == "note":
        open_note(vkey, open(sys.argv[3]).read())
    elif command == "inclusion":
        text = open(sys.argv[3]).read()
        header, rest = text.split("\n", 1)
        if header != "c2sp.org/tlog-proof@v1":
            fail("not a tlog-proof")
        lines, _, note = rest.partition("\n\n")
        lines = lines.split("\n")
        index = int(lines[0].removeprefix("index "))
        proof = [base64.b64decode(line) for line in lines[1:]]
        _, size, root = checkpoint(open_note(vkey, note))
        leaf = hashlib.sha256(b"\x00" + open(sys.argv[4], "rb").read()).digest()
        if inclusion_root(index, size, leaf, proof) != root:
            fail("the inclusion proof does not lead to the checkpoint's root")
    elif command == "cosignature":
        name, key_hash, key = vkey.split("+", 2)
        raw = base64.b64decode(key)
        if raw[0] != 4 or hashlib.sha256(name.encode() + b"\n" + raw).digest()[:4] != bytes.fromhex(key_hash):
            fail("not a cosigner verifier key")
        public = Ed25519PublicKey.from_public_bytes(raw[1:])
        text, _, signatures = open(sys.argv[3]).read().rpartition("\n\n")
        for line in signatures.splitlines():
            if line.startswith("\u2014 " + name + " "):
                signature = base64.b64decode(line.split(" ")[2])
                if signature[:4] == bytes.fromhex(key_hash) and len(signature) == 76:
                    (time,) = struct.unpack(">Q", signature[4:12])
                    public.verify(signature[12:], b"cosignature/v1\ntime %d\n" % time + (text + "\n").encode())
                    break
        else:
            fail("no cosignature by " + name)
    elif command == "consistency":
        _, size1, root1 = checkpoint(open_note(vkey, open(sys.argv[3]).read()))
        _, size2, root2 = checkpoint(open_note(vkey, open(sys.argv[4]).read()))
        proof = [base64.b64decode(line) for line in open(sys.argv[5]).read().split()]
        if not consistency_ok(size1, size2, root1, root2, proof):
            fail("the consistency proof does not hold")
    print("ok")


try:
    main()
except InvalidSignature:
    fail("a signature does not verify")
