# SPDX-License-Identifier: Apache-2.0
"""The testbed's delay stage: a fixed one-way delay between two interfaces, in both directions.

netem is not in this kernel (nor fq, fq_codel; htb and tbf cannot delay), so the testbed owns
the propagation delay: this forwarder reads every frame arriving on one interface (AF_PACKET,
ETH_P_ALL), holds it for --delay-ms and sends it out of the other, preserving order and
dropping nothing. It runs in a network namespace of its own between the switch's bottleneck
port and the receiver, so the delay lies after the bottleneck queue, as a propagation delay
would. testbed.py measures the RTT it gives (ping through switch and delay line) and reports
that, not --delay-ms.

  delayline.py --a IFACE --b IFACE --delay-ms MS
"""
import argparse
import heapq
import select
import signal
import socket
import sys
import time

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4   # frames this socket (or the kernel) sent: not ours to forward
SNAP = 65535


def open_sock(iface):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind((iface, 0))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.setblocking(False)
    return s


def main(argv=None):
    ap = argparse.ArgumentParser(prog="testbed/delayline", description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", required=True)
    ap.add_argument("--b", required=True)
    ap.add_argument("--delay-ms", type=float, required=True)
    args = ap.parse_args(argv)
    if not 0 <= args.delay_ms <= 1000:
        print("delayline: --delay-ms %g out of range [0, 1000]" % args.delay_ms, file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    socks = {args.a: open_sock(args.a), args.b: open_sock(args.b)}
    other = {socks[args.a]: socks[args.b], socks[args.b]: socks[args.a]}
    d = args.delay_ms / 1000.0
    held, seq, fwd = [], 0, 0
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
                    pass  # a full socket buffer drops the frame, as a wire would not; counted nowhere
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
        print("delayline: forwarded %d frames" % fwd, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
