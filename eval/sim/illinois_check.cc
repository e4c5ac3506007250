// SPDX-License-Identifier: Apache-2.0
// Direct growth check of the harness's Illinois (tcp-illinois-linux.h) against ns-3.44's:
// a flow in congestion avoidance at 30 segments, whose last RTT's average delay sits near
// the largest seen (so alpha is near its minimum, 0.3), is ACKed for 10 RTTs. Illinois
// grows the window by alpha per RTT, about 3 segments; ns-3.44's TcpIllinois truncates
// alpha x ACKs to an integer and does not grow at all. Exit 0 when both behave so; when
// ns-3's stops freezing (a fixed ns-3), this fails so the harness can go back to it.
#include "tcp-illinois-linux.h"

#include "ns3/core-module.h"
#include "ns3/internet-module.h"

#include <cmath>
#include <cstdio>
#include <string>

using namespace ns3;

namespace
{

const uint32_t kMss = 1448;

// Window (segments) after 10 RTTs of ACKs, with alpha set from a congested RTT.
uint32_t
GrowthAfterCongestedRtt(const std::string& typeId)
{
    ObjectFactory f;
    f.SetTypeId(typeId);
    Ptr<TcpCongestionOps> cc = f.Create<TcpCongestionOps>();
    Ptr<TcpSocketState> tcb = CreateObject<TcpSocketState>();
    tcb->m_segmentSize = kMss;
    tcb->m_cWnd = 30 * kMss;
    tcb->m_ssThresh = 10 * kMss; // congestion avoidance
    tcb->m_lastAckedSeq = SequenceNumber32(1);
    tcb->m_nextTxSequence = SequenceNumber32(1 + 30 * kMss);
    // RTTs: base 100 ms, largest 200 ms, the last RTT's average 196 ms (da/dm = 0.96)
    cc->PktsAcked(tcb, 1, MilliSeconds(100));
    cc->PktsAcked(tcb, 1, MilliSeconds(200));
    for (int i = 0; i < 28; ++i)
    {
        cc->PktsAcked(tcb, 1, MilliSeconds(196));
    }
    const uint32_t w0 = tcb->GetCwndInSegments();
    // 10 RTTs of one-segment ACKs; every RTT the same congested delays
    uint32_t seq = 1;
    for (int rtt = 0; rtt < 10; ++rtt)
    {
        const uint32_t acks = tcb->GetCwndInSegments();
        for (uint32_t a = 0; a < acks; ++a)
        {
            seq += kMss;
            tcb->m_lastAckedSeq = SequenceNumber32(seq);
            cc->PktsAcked(tcb, 1, MilliSeconds(196));
            cc->IncreaseWindow(tcb, 1);
        }
        tcb->m_nextTxSequence = SequenceNumber32(seq + tcb->m_cWnd.Get());
    }
    return tcb->GetCwndInSegments() - w0;
}

} // namespace

int
main()
{
    // alpha = k1 / (k2 + da) at da/dm = 0.96: (0.99 x 10) / (0.99 + 0.95 x 9.7 / 0.3) = 0.31
    const double alpha = 0.99 * 10 / (0.99 + 0.95 * 9.7 / 0.3);
    const double want = 10 * alpha;
    const uint32_t ours = GrowthAfterCongestedRtt("ns3::TcpIllinoisLinux");
    const uint32_t ns3s = GrowthAfterCongestedRtt("ns3::TcpIllinois");
    std::printf("illinois_check: 10 congested RTTs from 30 segments: TcpIllinoisLinux +%u "
                "(alpha %.2f: expected +%.1f), ns-3.44 TcpIllinois +%u\n",
                ours, alpha, want, ns3s);
    bool ok = true;
    if (std::fabs(double(ours) - want) > 1.0)
    {
        std::printf("FAIL: TcpIllinoisLinux grew %u segments, expected %.1f +- 1\n", ours, want);
        ok = false;
    }
    if (ns3s != 0)
    {
        std::printf("FAIL: ns-3's TcpIllinois grew %u segments: its truncation is gone, so the "
                    "harness's copy may no longer be needed (eval/sim/tcp-illinois-linux.h)\n",
                    ns3s);
        ok = false;
    }
    return ok ? 0 : 1;
}
