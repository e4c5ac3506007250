# SPDX-License-Identifier: Apache-2.0
"""The flow-table slot and signature of a TCP connection, as the program
computes them (flow_tracker.p4: symmetric, hash_idx, hash_sig), so a test
knows a flow's register index from its 5-tuple instead of waiting for the
switch to report it. Both targets use the same standard CRCs: bf-p4c's
CRC32 / CRC16 ("crc_32", "crc_16" = CRC-16/ARC) and BMv2's crc32 / crc16."""
import ipaddress
import zlib


def crc16_arc(data):
    """CRC-16/ARC: poly 0x8005 reflected, init 0, no final xor."""
    crc = 0
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
    return crc


def _ip(x):
    return int(ipaddress.ip_address(x)) if isinstance(x, str) else int(x)


def _symmetric(ip_a, ip_b, port_a, port_b):
    ia, ib = _ip(ip_a), _ip(ip_b)
    return min(ia, ib), max(ia, ib), min(port_a, port_b), max(port_a, port_b)


def flow_hash(ip_a, ip_b, port_a, port_b, proto=6):
    """32-bit hash_idx: CRC32 over ip_lo, ip_hi, port_lo, port_hi, proto (big-endian)."""
    ip_lo, ip_hi, p_lo, p_hi = _symmetric(ip_a, ip_b, port_a, port_b)
    data = (ip_lo.to_bytes(4, "big") + ip_hi.to_bytes(4, "big") + p_lo.to_bytes(2, "big")
            + p_hi.to_bytes(2, "big") + bytes([proto]))
    return zlib.crc32(data)


def flow_sig(ip_a, ip_b, port_a, port_b):
    """The 16-bit signature a claimed slot stores: CRC16 over port_hi, ip_hi, port_lo, ip_lo
    with bit 15 set (never 0, an empty slot's)."""
    return 0x8000 | flow_crc16(ip_a, ip_b, port_a, port_b)


def flow_crc16(ip_a, ip_b, port_a, port_b):
    """hash_sig's CRC16 over port_hi, ip_hi, port_lo, ip_lo, before bit 15 is set."""
    ip_lo, ip_hi, p_lo, p_hi = _symmetric(ip_a, ip_b, port_a, port_b)
    return crc16_arc(p_hi.to_bytes(2, "big") + ip_hi.to_bytes(4, "big") + p_lo.to_bytes(2, "big")
                     + ip_lo.to_bytes(4, "big"))


def flow_index(ip_a, ip_b, port_a, port_b, idx_bits, proto=6):
    """Register index of the flow: the low idx_bits bits of flow_hash."""
    return flow_hash(ip_a, ip_b, port_a, port_b, proto) & ((1 << idx_bits) - 1)
