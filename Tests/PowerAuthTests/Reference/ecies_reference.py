#!/usr/bin/env python3
"""Independent PowerAuth 3.2 ECIES, written from the specification on the
`cryptography` package, to cross-check the Swift implementation.

  ecies_reference.py generate > ECIESFixtures/ecies-3.2.json
      encrypt requests and responses for both scopes; the fixtures keep every
      input (keys, nonces, timestamps) so the Swift side can reproduce them.
  ecies_reference.py decrypt < cases.json
      decrypt payloads produced by the Swift side; prints the plaintexts as JSON.
"""
import base64
import hashlib
import hmac
import json
import os
import struct
import sys
import time

from cryptography.hazmat.primitives import hashes, padding
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.kdf.x963kdf import X963KDF
from cryptography.hazmat.primitives import serialization

VERSION = b"3.2"


def b64(data):
    return base64.b64encode(data).decode()


def unb64(text):
    return base64.b64decode(text)


def with_sizes(*parts):
    out = b""
    for part in parts:
        part = part or b""
        out += struct.pack(">I", len(part)) + part
    return out


def fold(data32):
    return bytes(a ^ b for a, b in zip(data32[:16], data32[16:]))


def parameters(case):
    """SHARED_INFO_1, SHARED_INFO_2_BASE and ASSOCIATED_DATA of a case."""
    secret = case["applicationSecret"].encode()
    key = case["applicationKey"].encode()
    if case["scope"] == "application":
        sh2_base = hashlib.sha256(secret).digest()
        associated = with_sizes(VERSION, key)
    else:
        sh2_base = hmac.new(unb64(case["transportKey"]), secret, hashlib.sha256).digest()
        associated = with_sizes(VERSION, key, case["activationId"].encode())
    return case["sharedInfo1"].encode(), sh2_base, associated


def envelope(private_key, peer_public, ephemeral_public_bytes, sh1):
    shared = private_key.exchange(ec.ECDH(), peer_public)
    secret = X963KDF(algorithm=hashes.SHA256(), length=48, sharedinfo=VERSION + sh1 + ephemeral_public_bytes).derive(shared)
    return secret[:16], secret[16:32], secret[32:48]


def seal(keys, params, plaintext, nonce, timestamp, ephemeral_public_bytes):
    enc_key, mac_key, iv_key = keys
    _, sh2_base, associated = params
    iv = fold(hmac.new(iv_key, nonce, hashlib.sha256).digest())
    padder = padding.PKCS7(128).padder()
    padded = padder.update(plaintext) + padder.finalize()
    encryptor = Cipher(algorithms.AES(enc_key), modes.CBC(iv)).encryptor()
    encrypted = encryptor.update(padded) + encryptor.finalize()
    sh2 = with_sizes(sh2_base, nonce, struct.pack(">Q", timestamp), ephemeral_public_bytes, associated)
    mac = hmac.new(mac_key, encrypted + sh2, hashlib.sha256).digest()
    payload = {"encryptedData": b64(encrypted), "mac": b64(mac), "nonce": b64(nonce), "timestamp": timestamp}
    if ephemeral_public_bytes is not None:
        payload["ephemeralPublicKey"] = b64(ephemeral_public_bytes)
    return payload


def open_payload(keys, params, payload, ephemeral_public_bytes):
    enc_key, mac_key, iv_key = keys
    _, sh2_base, associated = params
    encrypted = unb64(payload["encryptedData"])
    nonce = unb64(payload["nonce"])
    sh2 = with_sizes(sh2_base, nonce, struct.pack(">Q", payload["timestamp"]), ephemeral_public_bytes, associated)
    expected = hmac.new(mac_key, encrypted + sh2, hashlib.sha256).digest()
    if not hmac.compare_digest(expected, unb64(payload["mac"])):
        raise ValueError("MAC mismatch")
    iv = fold(hmac.new(iv_key, nonce, hashlib.sha256).digest())
    decryptor = Cipher(algorithms.AES(enc_key), modes.CBC(iv)).decryptor()
    padded = decryptor.update(encrypted) + decryptor.finalize()
    unpadder = padding.PKCS7(128).unpadder()
    return unpadder.update(padded) + unpadder.finalize()


def private_bytes(key):
    return key.private_numbers().private_value.to_bytes(32, "big")


def public_bytes(key, compressed=False):
    form = serialization.PublicFormat.CompressedPoint if compressed else serialization.PublicFormat.UncompressedPoint
    return key.public_key().public_bytes(serialization.Encoding.X962, form)


def load_private(data):
    return ec.derive_private_key(int.from_bytes(data, "big"), ec.SECP256R1())


def load_public(data):
    return ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), data)


def generate():
    cases = []
    shapes = [
        ("application", "/pa/generic/application", b'{"identification":{"username":"alice"}}'),
        ("application", "/pa/activation", b'{"activationName":"reference","devicePublicKey":"AAAA"}'),
        ("activation", "/pa/generic/activation", b'{"processId":"8d1c5a2e-9f33-4a57-a1f2-1d4c0b8e7a66"}'),
        ("activation", "/pa/token/create", b"{}"),
        ("application", "/pa/generic/application", b""),
        ("activation", "/pa/generic/activation", bytes(range(256)) * 3),
    ]
    for index, (scope, sh1, plaintext) in enumerate(shapes):
        server = ec.generate_private_key(ec.SECP256R1())
        ephemeral = ec.generate_private_key(ec.SECP256R1())
        case = {
            "name": f"{scope}-{sh1}-{index}",
            "scope": scope,
            "sharedInfo1": sh1,
            "applicationKey": b64(os.urandom(16)),
            "applicationSecret": b64(os.urandom(16)),
            "serverPrivateKey": b64(private_bytes(server)),
            "serverPublicKey": b64(public_bytes(server)),
            "ephemeralPrivateKey": b64(private_bytes(ephemeral)),
        }
        if scope == "activation":
            case["activationId"] = "6ae8cd16-67a7-4840-8d37-33d9aab6ea5%d" % index
            case["transportKey"] = b64(os.urandom(16))
        params = parameters(case)
        ephemeral_public = public_bytes(ephemeral, compressed=True)
        keys = envelope(ephemeral, server.public_key(), ephemeral_public, params[0])
        now = int(time.time() * 1000)
        request_nonce, response_nonce = os.urandom(16), os.urandom(16)
        response_plaintext = b'{"status":"OK","index":%d}' % index
        case.update({
            "requestPlaintext": b64(plaintext),
            "requestNonce": b64(request_nonce),
            "requestTimestamp": now,
            "request": seal(keys, params, plaintext, request_nonce, now, ephemeral_public),
            "responsePlaintext": b64(response_plaintext),
            "responseNonce": b64(response_nonce),
            "responseTimestamp": now + 7,
            "response": seal(keys, params, response_plaintext, response_nonce, now + 7, None),
        })
        # Self-check: the server side of this implementation opens its own request.
        server_keys = envelope(server, load_public(ephemeral_public), ephemeral_public, params[0])
        assert open_payload(server_keys, params, case["request"], ephemeral_public) == plaintext
        cases.append(case)
    json.dump({"description": "PowerAuth 3.2 ECIES fixtures from ecies_reference.py (Python cryptography)", "data": cases}, sys.stdout, indent=1)
    print()


def decrypt():
    """Input: {"data": [case...]} where each case carries the parameters and either
    a request (opened with serverPrivateKey) or a response (opened with the
    ephemeralPrivateKey and serverPublicKey of the request it answers)."""
    results = []
    for case in json.load(sys.stdin)["data"]:
        params = parameters(case)
        try:
            if case["kind"] == "request":
                payload = case["payload"]
                ephemeral_public = unb64(payload["ephemeralPublicKey"])
                keys = envelope(load_private(unb64(case["serverPrivateKey"])), load_public(ephemeral_public), ephemeral_public, params[0])
                plaintext = open_payload(keys, params, payload, ephemeral_public)
            else:
                ephemeral = load_private(unb64(case["ephemeralPrivateKey"]))
                ephemeral_public = public_bytes(ephemeral, compressed=True)
                keys = envelope(ephemeral, load_public(unb64(case["serverPublicKey"])), ephemeral_public, params[0])
                plaintext = open_payload(keys, params, case["payload"], None)
            results.append({"name": case["name"], "plaintext": b64(plaintext)})
        except Exception as error:  # report, do not crash: the Swift test asserts on it
            results.append({"name": case["name"], "error": str(error)})
    json.dump({"data": results}, sys.stdout)
    print()


if __name__ == "__main__":
    {"generate": generate, "decrypt": decrypt}[sys.argv[1] if len(sys.argv) > 1 else ""]()
