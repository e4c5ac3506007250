// SPDX-License-Identifier: Apache-2.0
// TCP Vegas with the Linux module's loss response, for the harness's "vegas" flows.
//
// Why not ns3::TcpVegas as is (ns-3.44): on a loss its GetSsThresh returns
// max(min(ssthresh, cwnd - 1 segment), 2 segments), and in congestion avoidance it raises
// ssthresh every RTT to at least 3/4 of the window, so a loss cuts the window by at most a
// quarter, often by one segment. Linux's tcp_vegas registers tcp_reno_ssthresh for losses: the
// window halves (max(cwnd / 2, 2)). The delay-based part (alpha, beta, gamma, once per RTT)
// is ns-3's; where it calls GetSsThresh itself (leaving slow start at gamma, the decrement at
// beta) the stored threshold is now cwnd / 2 rather than Linux's min(ssthresh, cwnd), which
// moves no window: congestion avoidance follows either way and raises ssthresh to 3/4 cwnd.
// Measured with eval/sim/vegas_check.cc: from 100 segments with ssthresh 75, ns-3.44's
// TcpVegas goes to 75 (with ssthresh above the window, to 99), this one to 50. Under an AQM
// that drops by rate (ccfair's PV law) the shallow cut kept Vegas above the rate it was
// dropped at (docs/eval.md, "TCP settings and their evidence").
#pragma once

#include "ns3/tcp-socket-state.h"
#include "ns3/tcp-vegas.h"

#include <algorithm>
#include <cstdint>

namespace ns3
{

class TcpVegasLinux : public TcpVegas
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TcpVegasLinux")
                                .SetParent<TcpVegas>()
                                .SetGroupName("Internet")
                                .AddConstructor<TcpVegasLinux>();
        return tid;
    }

    TcpVegasLinux() = default;
    TcpVegasLinux(const TcpVegasLinux&) = default;

    std::string GetName() const override
    {
        return "TcpVegasLinux";
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<TcpVegasLinux>(this);
    }

    // tcp_reno_ssthresh: half the window, at least two segments
    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t) override
    {
        return std::max(tcb->m_cWnd.Get() / 2, 2 * tcb->m_segmentSize);
    }
};

NS_OBJECT_ENSURE_REGISTERED(TcpVegasLinux);

} // namespace ns3
