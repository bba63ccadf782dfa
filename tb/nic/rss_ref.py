# SPDX-License-Identifier: MIT
"""Python Toeplitz reference (Microsoft "RSS hashing functions" pseudocode) and Microsoft's published
verification vectors ("Verifying the RSS Hash Calculation"). test_reference() checks the model
against the vectors before any bench trusts it."""
import ipaddress

MS_KEY = bytes.fromhex("6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c6a42b73bbeac01fa")

# (destination addr, dst port, source addr, src port, hash IP only, hash with TCP)
MS_V4 = [
    ("161.142.100.80", 1766, "66.9.149.187", 2794, 0x323e8fc2, 0x51ccc178),
    ("65.69.140.83", 4739, "199.92.111.2", 14230, 0xd718262a, 0xc626b0ea),
    ("12.22.207.184", 38024, "24.19.198.95", 12898, 0xd2d0a5de, 0x5c2b394a),
    ("209.142.163.6", 2217, "38.27.205.30", 48228, 0x82989176, 0xafc7327f),
    ("202.188.127.2", 1303, "153.39.163.191", 44251, 0x5d1809c5, 0x10e828a2),
]
MS_V6 = [
    ("3ffe:2501:200:3::1", 1766, "3ffe:2501:200:1fff::7", 2794, 0x2cc18cd5, 0x40207d3d),
    ("ff02::1", 4739, "3ffe:501:8::260:97ff:fe40:efab", 14230, 0x0f0c461c, 0xdde51bbf),
    ("fe80::200:f8ff:fe21:67cf", 38024, "3ffe:1900:4545:3:200:f8ff:fe21:67cf", 44251, 0x4b61e985, 0x02d1feef),
]


def toeplitz(key, data):
    """For each input bit, left to right: if set, XOR in the leftmost 32 key bits; shift the key left."""
    k = int.from_bytes(key, "big")
    kbits = len(key) * 8
    result = 0
    for i in range(len(data) * 8):
        if (data[i // 8] >> (7 - i % 8)) & 1:
            result ^= (k >> (kbits - 32 - i)) & 0xFFFFFFFF
    return result


def addr_bytes(a):
    return ipaddress.ip_address(a).packed


def tuple_bytes(src, dst, sport=None, dport=None):
    b = addr_bytes(src) + addr_bytes(dst)
    if sport is not None:
        b += sport.to_bytes(2, "big") + dport.to_bytes(2, "big")
    return b


def test_reference():
    for dst, dport, src, sport, h_ip, h_tcp in MS_V4 + MS_V6:
        assert toeplitz(MS_KEY, tuple_bytes(src, dst)) == h_ip
        assert toeplitz(MS_KEY, tuple_bytes(src, dst, sport, dport)) == h_tcp
