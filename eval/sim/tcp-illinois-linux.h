// SPDX-License-Identifier: Apache-2.0
// TCP Illinois (Liu, Basar, Srikant 2006) as the Linux module behaves, for the harness's
// "illinois" flows. Written from the algorithm's description and the Linux module's
// documented constants (alpha 0.3..10, beta 1/8..1/2, window threshold 15, theta 5).
//
// Why not ns3::TcpIllinois (ns-3.44): its IncreaseWindow adds segmentsAcked * alpha to a
// uint32_t ACK counter, so with alpha < 1 (a queue near its largest delay) every increment
// truncates to 0 and the window stops growing; and its small-window test compares the window
// in bytes with a threshold in segments. Measured: an Illinois flow beside Cubic through a
// FIFO gets its fair share in ns-3 (JFI 0.995) but out-competes Cubic with this version
// (0.745), as the P4air seed's Linux runs show; under ccfair a few ns-3 Illinois flows sat
// at a 3-segment window with no drop (docs/eval.md). eval/sim/illinois_check.cc holds both
// to a direct growth test.
#pragma once

#include "ns3/tcp-congestion-ops.h"
#include "ns3/tcp-socket-state.h"

#include <algorithm>
#include <cstdint>

namespace ns3
{

class TcpIllinoisLinux : public TcpNewReno
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TcpIllinoisLinux")
                                .SetParent<TcpNewReno>()
                                .SetGroupName("Internet")
                                .AddConstructor<TcpIllinoisLinux>();
        return tid;
    }

    TcpIllinoisLinux() = default;
    TcpIllinoisLinux(const TcpIllinoisLinux&) = default;

    std::string GetName() const override
    {
        return "TcpIllinoisLinux";
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<TcpIllinoisLinux>(this);
    }

    void PktsAcked(Ptr<TcpSocketState>, uint32_t, const Time& rtt) override
    {
        if (!rtt.IsStrictlyPositive())
        {
            return;
        }
        const double r = rtt.GetSeconds();
        m_baseRtt = m_cntAll ? std::min(m_baseRtt, r) : r;
        m_maxRtt = std::max(m_maxRtt, r);
        m_cntAll++;
        m_sumRtt += r;
        m_cntRtt++;
    }

    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        // once per RTT: the parameters from the delays seen over the last one
        if (tcb->m_lastAckedSeq > m_endSeq)
        {
            Update(tcb->GetCwndInSegments());
            m_endSeq = tcb->m_nextTxSequence;
        }
        if (tcb->m_cWnd < tcb->m_ssThresh)
        {
            segmentsAcked = TcpNewReno::SlowStart(tcb, segmentsAcked);
            if (segmentsAcked == 0)
            {
                return;
            }
        }
        // cwnd += alpha / cwnd per ACKed segment; the fraction is kept, not truncated
        m_ackCredit += double(segmentsAcked) * m_alpha;
        uint32_t w = tcb->GetCwndInSegments();
        if (m_ackCredit >= w)
        {
            const uint32_t add = uint32_t(m_ackCredit / w);
            m_ackCredit -= double(add) * w;
            w += add;
            tcb->m_cWnd = w * tcb->m_segmentSize;
        }
    }

    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t) override
    {
        const uint32_t w = tcb->GetCwndInSegments();
        const uint32_t cut = uint32_t(double(w) * m_beta);
        return std::max<uint32_t>(2, w - cut) * tcb->m_segmentSize;
    }

    void CongestionStateSet(Ptr<TcpSocketState>, const TcpSocketState::TcpCongState_t s) override
    {
        if (s == TcpSocketState::CA_LOSS) // an RTO: back to Reno's parameters
        {
            m_alpha = kAlphaBase, m_beta = kBetaBase, m_rttLow = 0, m_rttAbove = false;
            m_sumRtt = 0, m_cntRtt = 0;
        }
    }

    double Alpha() const
    {
        return m_alpha;
    }

  private:
    static constexpr double kAlphaMin = 0.3, kAlphaMax = 10.0, kAlphaBase = 1.0;
    static constexpr double kBetaMin = 0.125, kBetaMax = 0.5, kBetaBase = 0.5;
    static constexpr uint32_t kWinThresh = 15, kTheta = 5;

    void Update(uint32_t cwndSegments)
    {
        if (cwndSegments < kWinThresh)
        {
            m_alpha = kAlphaBase, m_beta = kBetaBase;
        }
        else if (m_cntRtt > 0)
        {
            const double dm = m_maxRtt - m_baseRtt;            // largest queuing delay seen
            const double da = m_sumRtt / m_cntRtt - m_baseRtt; // average over the last RTT
            m_alpha = Alpha(da, dm);
            m_beta = Beta(da, dm);
        }
        m_sumRtt = 0, m_cntRtt = 0;
    }

    // Largest while the average delay stays within 1 % of the largest (after theta such RTTs
    // once it has been above); then falling as alpha = k1 / (k2 + da), a concave curve.
    double Alpha(double da, double dm)
    {
        const double d1 = dm / 100;
        if (da <= d1)
        {
            if (!m_rttAbove)
            {
                return kAlphaMax;
            }
            if (++m_rttLow < kTheta)
            {
                return m_alpha;
            }
            m_rttLow = 0, m_rttAbove = false;
            return kAlphaMax;
        }
        m_rttAbove = true;
        const double dmx = dm - d1, dax = da - d1;
        return dmx * kAlphaMax / (dmx + dax * (kAlphaMax - kAlphaMin) / kAlphaMin);
    }

    // 1/8 up to 10 % of the largest delay, 1/2 from 80 %, linear between.
    static double Beta(double da, double dm)
    {
        const double d2 = dm / 10, d3 = dm * 8 / 10;
        if (da <= d2)
        {
            return kBetaMin;
        }
        if (da >= d3 || d3 <= d2)
        {
            return kBetaMax;
        }
        return kBetaMin + (kBetaMax - kBetaMin) * (da - d2) / (d3 - d2);
    }

    double m_alpha = kAlphaBase, m_beta = kBetaBase;
    double m_ackCredit = 0; // ACKed segments x alpha not yet turned into window
    double m_baseRtt = 0, m_maxRtt = 0, m_sumRtt = 0;
    uint64_t m_cntAll = 0;
    uint32_t m_cntRtt = 0, m_rttLow = 0;
    bool m_rttAbove = false;
    SequenceNumber32 m_endSeq{0};
};

NS_OBJECT_ENSURE_REGISTERED(TcpIllinoisLinux);

} // namespace ns3
