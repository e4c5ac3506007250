# SPDX-License-Identifier: Apache-2.0
"""The testbed's delay stage: a fixed one-way delay between two interfaces, in both directions.

netem is not in this kernel (nor fq, fq_codel; htb and tbf cannot delay), so the testbed owns
the propagation delay: this forwarder reads every frame arriving on one interface (AF_PACKET,
ETH_P_ALL), holds it for --delay-ms and sends it out of the other, in order. It counts what it
could not carry: frames whose send failed (a full socket buffer) and frames the kernel dropped
before it read them (PACKET_STATISTICS of its receive sockets); it prints them at exit and, with
--stats, writes them as JSON (testbed.py puts them in summary.json's "delay_line"). It runs in a network namespace of its own between the switch's bottleneck
port and the receiver, so the delay lies after the bottleneck queue, as a propagation delay
would. testbed.py measures the RTT it gives (ping through switch and delay line) and reports
that, not --delay-ms.

  delayline.py --a IFACE --b IFACE --delay-ms MS [--stats FILE.json]
"""
import argparse
import heapq
import json
import select
import signal
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4   # frames this socket (or the kernel) sent: not ours to forward
SNAP = 65535
SOL_PACKET = getattr(socket, "SOL_PACKET", 263)
PACKET_STATISTICS = 6  # struct tpacket_stats {unsigned tp_packets, tp_drops}; reading resets it


def open_sock(iface):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind((iface, 0))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.setblocking(False)
    return s


def rx_drops(sock):
    """Frames the kernel dropped on this socket's receive queue since the last call, or None."""
    try:
        _, drops = struct.unpack("II", sock.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8))
        return drops
    except (OSError, struct.error):
        return None


def main(argv=None):
    ap = argparse.ArgumentParser(prog="testbed/delayline", description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", required=True)
    ap.add_argument("--b", required=True)
    ap.add_argument("--delay-ms", type=float, required=True)
    ap.add_argument("--stats", help="write the counts as JSON to this file at exit")
    args = ap.parse_args(argv)
    if not 0 <= args.delay_ms <= 1000:
        print("delayline: --delay-ms %g out of range [0, 1000]" % args.delay_ms, file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    socks = {args.a: open_sock(args.a), args.b: open_sock(args.b)}
    other = {socks[args.a]: socks[args.b], socks[args.b]: socks[args.a]}
    d = args.delay_ms / 1000.0
    for s in socks.values():
        rx_drops(s)  # reset: count from here
    held, seq, fwd, send_fail = [], 0, 0, 0
    print("delayline: %s <-> %s, %.1f ms each way" % (args.a, args.b, args.delay_ms), flush=True)
    try:
        while True:
            now = time.monotonic()
            while held and held[0][0] <= now:
                _, _, out, frame = heapq.heappop(held)
                try:
                    out.send(frame)
                    fwd += 1
                except OSError:
                    send_fail += 1  # a full socket buffer drops the frame, as a wire would not
            timeout = max(0.0, held[0][0] - now) if held else 1.0
            ready, _, _ = select.select(list(other), [], [], timeout)
            now = time.monotonic()
            for s in ready:
                while True:
                    try:
                        frame, addr = s.recvfrom(SNAP)
                    except BlockingIOError:
                        break
                    if addr[2] == PACKET_OUTGOING:
                        continue
                    seq += 1
                    heapq.heappush(held, (now + d, seq, other[s], frame))
    except KeyboardInterrupt:
        pass
    finally:
        drops = {name: rx_drops(s) for name, s in socks.items()}
        st = {"delay_ms": args.delay_ms, "forwarded": fwd, "send_failures": send_fail, "held_at_exit": len(held),
              "rx_drops": drops,
              "rx_drops_total": None if None in drops.values() else sum(drops.values())}
        print("delayline: forwarded %d frames, %d send failures, receive drops %s, %d held at exit" % (
            fwd, send_fail, json.dumps(drops), len(held)), flush=True)
        if args.stats:
            with open(args.stats, "w") as f:
                json.dump(st, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
