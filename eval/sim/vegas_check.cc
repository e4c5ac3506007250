// SPDX-License-Identifier: Apache-2.0
// Direct check of the harness's Vegas loss response (tcp-vegas-linux.h) against ns-3.44's:
// the slow-start threshold a loss sets from a 100-segment window (on a forked copy, as a
// socket's), with ssthresh at 75 (3/4 of the window, where Vegas's congestion avoidance keeps
// it at least) and at 200. Linux
// halves (50 both times); ns-3.44's TcpVegas goes to min(ssthresh, window - 1): 75 and 99.
// Exit 0 when both behave so; when ns-3's halves (a fixed ns-3), this fails so the harness
// can go back to it.
#include "tcp-vegas-linux.h"

#include "ns3/core-module.h"
#include "ns3/internet-module.h"

#include <cstdio>
#include <string>

using namespace ns3;

namespace
{

const uint32_t kMss = 1448;

double
SsThreshAfterLoss(const std::string& typeId, uint32_t ssthreshSegs)
{
    ObjectFactory f;
    f.SetTypeId(typeId);
    // a socket uses its own copy (Fork): the override must survive it
    Ptr<TcpCongestionOps> cc = f.Create<TcpCongestionOps>()->Fork();
    Ptr<TcpSocketState> tcb = CreateObject<TcpSocketState>();
    tcb->m_segmentSize = kMss;
    tcb->m_cWnd = 100 * kMss;
    tcb->m_ssThresh = ssthreshSegs * kMss;
    return double(cc->GetSsThresh(tcb, 100 * kMss)) / kMss;
}

} // namespace

int
main()
{
    bool ok = true;
    for (uint32_t ss : {75u, 200u})
    {
        const double ours = SsThreshAfterLoss("ns3::TcpVegasLinux", ss);
        const double ns3s = SsThreshAfterLoss("ns3::TcpVegas", ss);
        std::printf("vegas_check: loss at 100 segments, ssthresh %u: TcpVegasLinux -> %.1f (Linux: 50), "
                    "ns-3.44 TcpVegas -> %.1f\n", ss, ours, ns3s);
        if (ours != 50.0)
        {
            std::printf("FAIL: TcpVegasLinux set ssthresh %.1f segments, expected 50\n", ours);
            ok = false;
        }
        if (ns3s <= 50.0)
        {
            std::printf("FAIL: ns-3's TcpVegas now cuts to %.1f segments: the harness's copy may no "
                        "longer be needed (eval/sim/tcp-vegas-linux.h)\n", ns3s);
            ok = false;
        }
    }
    return ok ? 0 : 1;
}
