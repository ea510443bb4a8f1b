#!/usr/bin/env python3
"""Writes a savekit store file from docs/store-format.md alone (its own CRC-32C and encoding),
so the CLI tests can hand the program files savekit would never write.

Usage: store_file.py OUT [--version N] RECORD...
A RECORD is SEQUENCE:FLAGS:OP,OP,...  with OP = put/KEY/TYPE/HEX or erase/KEY
(KEY is hex too, so any byte can be in it). Example:
  store_file.py s.prefs 0:1: 1:0:put/6c76/1/c1      # an int entry holding the byte 0xc1
"""
import struct
import sys


def crc32c(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def leb128(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def record(spec: str) -> bytes:
    sequence, flags, ops = spec.split(":", 2)
    ops = [op for op in ops.split(",") if op]
    payload = bytearray([1]) + struct.pack("<QB", int(sequence), int(flags)) + leb128(len(ops))
    for op in ops:
        parts = op.split("/")
        key = bytes.fromhex(parts[1])
        if parts[0] == "erase":
            payload += bytes([2]) + leb128(len(key)) + key
        else:
            value = bytes.fromhex(parts[3])
            payload += bytes([1]) + leb128(len(key)) + key + bytes([int(parts[2])]) + leb128(len(value)) + value
    return struct.pack("<II", len(payload), crc32c(payload)) + payload


def main(argv):
    out, version, records = argv[1], 1, []
    args = iter(argv[2:])
    for arg in args:
        if arg == "--version":
            version = int(next(args))
        else:
            records.append(record(arg))
    header = b"SKPREFS\0" + struct.pack("<I", version)
    with open(out, "wb") as f:
        f.write(header + struct.pack("<I", crc32c(header)) + b"".join(records))


if __name__ == "__main__":
    main(sys.argv)
