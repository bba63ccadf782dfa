# SPDX-License-Identifier: MIT
"""Internet checksum reference for the NIC benches: the RFC 1071 16-bit ones'-complement sum."""
import struct


def ones_sum(data):
    """RFC 1071 sum of `data`, not complemented; data[0] is the high byte of the first word and an
    odd length is padded with a zero byte."""
    data = bytes(data)
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f">{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s
