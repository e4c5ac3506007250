// SPDX-License-Identifier: Apache-2.0
#include "pipeline.h"

#include "ccfair-params.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace ccfair
{
namespace P = ccfair::params;

namespace
{
// log2(1 + m/256) in Q8 for the 8 mantissa bits after the leading one: the
// table the P4 program holds (or the math unit computes).
struct MantissaTable
{
    std::array<int32_t, 256> v;
    MantissaTable()
    {
        for (int m = 0; m < 256; ++m)
            v[m] = int32_t(std::lround(std::log2(1.0 + m / 256.0) * 256.0));
    }
};
const MantissaTable kMant;

int32_t Q8(double x) { return int32_t(std::lround(x * 256.0)); }

// log2(8000): bytes/us -> kbps in the log domain.
const int32_t kLog2BytesPerUsToKbps = Q8(std::log2(8000.0));

uint64_t Mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}
} // namespace

Config
Config::Defaults()
{
    Config c;
    c.link_rate_bps = 100000000;
    c.num_queues = uint32_t(P::QUEUES_PER_PORT);
    c.quantum_bytes = 1514 * uint32_t(P::QUEUES_DEFAULT_WEIGHT);
    c.flow_table_size = uint32_t(P::FLOWS_PER_PIPE_TOFINO); // one Tofino pipe's table, here for one port
    c.signature_bits = uint32_t(P::FLOW_SIGNATURE_BITS);
    c.default_rtt_us = uint32_t(P::FLOW_DEFAULT_RTT_US);
    c.min_rtt_us = uint32_t(P::FLOW_MIN_RTT_US);
    c.max_rtt_us = uint32_t(P::FLOW_MAX_RTT_US);
    c.ant_max_pkts = uint32_t(P::FLOW_ANT_MAX_PKTS_PER_INTERVAL);
    c.idle_intervals = uint32_t(P::FLOW_IDLE_INTERVALS_TO_EXPIRE);
    c.k = uint32_t(P::GROUPS_K);
    c.m_ld = uint32_t(P::CLASSIFIER_M_LD);
    c.m_pl = uint32_t(P::CLASSIFIER_M_PL);
    c.m_m = uint32_t(P::CLASSIFIER_M_M);
    c.aggr_growth_shift = uint32_t(P::CLASSIFIER_AGGR_GROWTH_SHIFT);
    c.bwest_up_shift = uint32_t(P::CLASSIFIER_BWEST_UP_SHIFT);
    c.bwest_down_shift = uint32_t(P::CLASSIFIER_BWEST_DOWN_SHIFT);
    c.bdp_shift = uint32_t(P::CLASSIFIER_BDP_SHIFT);
    c.ss_proactive_drop = P::CLASSIFIER_SS_PROACTIVE_DROP != 0;
    c.tvf_steps = uint32_t(P::TVF_RATE_STEPS);
    c.tvf_min_kbps = uint32_t(P::TVF_RATE_MIN_KBPS);
    c.tvf_steps_per_decade = uint32_t(P::TVF_STEPS_PER_DECADE);
    c.pv_max = uint32_t(P::TVF_PV_MAX);
    c.target_delay_us = uint32_t(P::AQM_TARGET_DELAY_US);
    c.ctv_update_interval_us = uint32_t(P::AQM_CTV_UPDATE_INTERVAL_US);
    c.ctv_step_up = uint32_t(P::AQM_CTV_STEP_UP);
    c.ctv_step_down = uint32_t(P::AQM_CTV_STEP_DOWN);
    c.ecn = P::AQM_ECN != 0;
    c.cocoa_initial = uint32_t(P::COCOA_INITIAL_LIMIT_PKTS);
    c.cocoa_min = uint32_t(P::COCOA_MIN_LIMIT_PKTS);
    c.cocoa_max = uint32_t(P::COCOA_MAX_LIMIT_PKTS);
    c.cocoa_max_gi_ms = uint32_t(P::COCOA_MAX_GI_MS);
    c.cocoa_gi_mult = P::COCOA_GI_MULTIPLIER;
    c.cocoa_max_increase = P::COCOA_MAX_INCREASE;
    c.buffer_pkts = 0;
    return c;
}

int32_t
Pipeline::Log2Q8(uint64_t x)
{
    if (x == 0)
        return INT32_MIN;
    int msb = 63 - __builtin_clzll(x);
    uint32_t m = msb >= 8 ? uint32_t(x >> (msb - 8)) & 0xFF : uint32_t(x << (8 - msb)) & 0xFF;
    return msb * 256 + kMant.v[m];
}

Pipeline::Pipeline(const Config& c, uint64_t seed)
    : m_c(c),
      m_rng(seed ? seed : 1)
{
    m_nGroups = 2 + 3 * m_c.k;
    m_flows.assign(m_c.flow_table_size, Flow{});
    m_q.assign(m_c.num_queues, QueueState{});
    m_g.assign(m_nGroups, GroupStats{});
    m_rrSlot.assign(m_nGroups, 0);
    m_qmap.assign(size_t(m_nGroups) * m_c.num_queues, 0);
    for (auto& q : m_q)
    {
        q.limit = m_c.cocoa_initial;
        q.gi_len = uint64_t(m_c.cocoa_max_gi_ms) * 1000000ULL;
    }
    // bin i starts at min * 10^(i / steps_per_decade) kbps (params tvf._doc)
    for (uint32_t i = 0; i < m_c.tvf_steps; ++i)
        m_binEdges.push_back(
            Q8(std::log2(double(m_c.tvf_min_kbps)) + double(i) / m_c.tvf_steps_per_decade * std::log2(10.0)));
    m_tvf.assign(m_nGroups, std::vector<uint16_t>(m_c.tvf_steps));
    m_rttBoundary = m_c.max_rtt_us + 1;
    SetFairRate(m_c.link_rate_bps);
    ControllerTick(0);
}

void
Pipeline::SetFairRate(uint64_t bps)
{
    m_fairBps = bps;
    m_logFairRate = Q8(std::log2(std::max<double>(bps, 1.0) / 8e6)); // bytes per us
    // TVFs (per-flow objective: the same for every group) spend the PV range on one
    // decade either side of the fair rate: pv_max/2 at its bin, pv_max at fair / 10,
    // 0 at 10 x fair. The CTV steps then move a queue's threshold by a fixed share
    // of the fair rate per update (64 / (65535 / 32) bins, 0.45 %) whatever the
    // link rate, and the threshold cannot wind up beyond the table.
    // the controller places the fair rate in its bin with floating point (no Q8 rounding)
    const int64_t fairBin = std::clamp<int64_t>(
        int64_t(std::floor(m_c.tvf_steps_per_decade * std::log10(std::max<double>(bps, 1.0) / 1e3 / m_c.tvf_min_kbps) + 1e-9)),
        0, m_c.tvf_steps - 1);
    m_fairBin = uint32_t(fairBin);
    const int64_t d = m_c.tvf_steps_per_decade, pv = m_c.pv_max;
    for (auto& t : m_tvf)
        for (uint32_t i = 0; i < m_c.tvf_steps; ++i)
            t[i] = uint16_t(std::clamp<int64_t>(pv / 2 - (int64_t(i) - fairBin) * pv / (2 * d), 0, pv));
}

uint32_t
Pipeline::RateBin(int32_t log2_kbps_q8) const
{
    auto it = std::upper_bound(m_binEdges.begin(), m_binEdges.end(), log2_kbps_q8);
    if (it == m_binEdges.begin())
        return 0;
    return uint32_t(it - m_binEdges.begin() - 1);
}

uint16_t
Pipeline::DrawPv(uint8_t group, int32_t log_rate, uint16_t r) const
{
    if (log_rate == INT32_MIN)
        return uint16_t(m_c.pv_max); // no rate measured yet: all of it is "first bits"
    int32_t logU = Log2Q8(r ? r : 1) - 16 * 256; // log2(u), u = r / 2^16
    const int32_t pos = log_rate + kLog2BytesPerUsToKbps + logU;
    const uint32_t bin = RateBin(pos);
    // 16 sub-steps per bin from the next bits of the log position, i.e. a 16x finer
    // TVF table (an SRAM look-up on Tofino), so the drop share of a flow changes
    // smoothly with the CTV instead of in 15 % jumps.
    const auto& t = m_tvf[group];
    if (bin + 1 >= m_c.tvf_steps || pos < m_binEdges[0])
        return t[bin];
    const int32_t w = m_binEdges[bin + 1] - m_binEdges[bin];
    const int32_t sub = std::min<int32_t>(15, (pos - m_binEdges[bin]) * 16 / w);
    return uint16_t(t[bin] - ((int32_t(t[bin]) - int32_t(t[bin + 1])) * sub >> 4));
}

uint16_t
Pipeline::NextRand()
{
    m_rng ^= m_rng >> 12;
    m_rng ^= m_rng << 25;
    m_rng ^= m_rng >> 27;
    uint16_t r = uint16_t((m_rng * 2685821657736338717ULL) >> 48);
    return r ? r : 1;
}

namespace
{
// Symmetric flow key: the two endpoints (address << 16 | port) in order, so both
// directions of a connection give one key and one hash. fwd: src is the lower.
struct FlowKey
{
    uint64_t lo, hi, hash;
    bool fwd;
};

FlowKey
KeyOf(uint32_t src, uint16_t sport, uint32_t dst, uint16_t dport)
{
    uint64_t e1 = (uint64_t(src) << 16) | sport, e2 = (uint64_t(dst) << 16) | dport;
    FlowKey k;
    k.fwd = e1 <= e2;
    k.lo = k.fwd ? e1 : e2;
    k.hi = k.fwd ? e2 : e1;
    k.hash = Mix64(k.lo * 0x9E3779B97F4A7C15ULL ^ Mix64(k.hi));
    return k;
}
} // namespace

int
Pipeline::Lookup(const Pkt& p, bool& fwd)
{
    const FlowKey key = KeyOf(p.src, p.sport, p.dst, p.dport);
    const uint64_t lo = key.lo, hi = key.hi, h = key.hash;
    fwd = key.fwd;
    uint32_t idx = uint32_t(h) & (m_c.flow_table_size - 1);
    uint16_t sig = uint16_t((h >> 40) & ((1u << m_c.signature_bits) - 1));
    if (sig == 0)
        sig = 1; // 0 marks an empty slot in the P4 register
    Flow& f = m_flows[idx];
    bool expired =
        f.valid && p.t_ns - f.last_seen > uint64_t(m_c.default_rtt_us) * 1000ULL * m_c.idle_intervals;
    if (!f.valid || expired)
    {
        uint32_t gen = f.gen + 1;
        f = Flow{};
        f.valid = true;
        f.gen = gen;
        f.sig = sig;
        f.a_ip = uint32_t(lo >> 16);
        f.a_port = uint16_t(lo);
        f.b_ip = uint32_t(hi >> 16);
        f.b_port = uint16_t(hi);
        f.group = 0xFF; // "new" until ingress initialises it
        return int(idx);
    }
    if (f.sig != sig)
    {
        ++m_collisions;
        return -1;
    }
    return int(idx);
}

void
Pipeline::SetGroup(Flow& f, uint8_t g)
{
    uint8_t old = f.group == 0xFF ? uint8_t(P::GROUP_ANT) : f.group;
    f.group = g;
    // the flow now sits in another queue: depth history of the old one says nothing
    f.prev_max_depth = 0;
    // deal slots round-robin per group so a group's flows spread over its queues
    f.slot = uint8_t(m_rrSlot[g]++ % m_c.num_queues);
    if (onGroupChange && old != g)
        onGroupChange(f, old, g); // a new flow reports ant (untracked) -> mouse
}

void
Pipeline::RollOver(Flow& f, uint64_t t)
{
    const uint32_t n = f.pkts, d = f.max_depth;
    const int32_t lr = f.bytes ? Log2Q8(f.bytes) - Log2Q8(f.rtt_us) : INT32_MIN;
    const uint8_t g = f.group;
    uint8_t ng = g;
    const uint8_t delayG = GroupId(P::FAMILY_DELAY, SubGroupOfRtt(f.rtt_us));
    if (g == P::GROUP_MOUSE)
    {
        if (n <= m_c.ant_max_pkts)
            ng = uint8_t(P::GROUP_ANT);
        else if (f.prev_valid && n < f.prev_pkts)
            ng = delayG; // slow start ended: packets per interval fell
    }
    else if (g == P::GROUP_ANT)
    {
        if (n > m_c.ant_max_pkts)
            ng = uint8_t(P::GROUP_MOUSE);
    }
    else if (n > m_c.ant_max_pkts) // long-lived; sparse (app-limited) intervals are not evidence
    {
        const uint32_t pd = f.prev_max_depth;
        if (f.prev_valid && d > pd && d - pd >= (pd >> m_c.aggr_growth_shift))
            f.aggr = uint8_t(std::min(255, f.aggr + 1));
        else
            f.aggr = 0;
        // BwEst: an up interval (>= 1 + 2^-up of the previous) followed within two
        // intervals by a down one (<= 1 - 2^-down of the up interval).
        const int32_t up = m_bwUpQ8, down = m_bwDownQ8;
        // Only intervals with enough packets count: with n packets one packet of
        // jitter changes the rate by (n+1)/(n-1), which stays below 1 + 2^-up only
        // for n > 2^(up+1) + 1. Without this, flows with a few packets per RTT
        // (short RTTs, many flows) look like BBR after a few intervals.
        const uint32_t bwMin = (2u << m_c.bwest_up_shift) + 2;
        if (lr != INT32_MIN && f.log_rate != INT32_MIN && n >= bwMin && f.prev_pkts >= bwMin)
        {
            if (f.bw_phase > 0 && lr <= f.up_log_rate + down)
            {
                f.bwest = uint8_t(std::min(255, f.bwest + 1));
                f.bw_phase = 0;
                f.since_pattern = 0;
            }
            else if (lr >= f.log_rate + up)
            {
                f.bw_phase = 2;
                f.up_log_rate = lr;
            }
            else if (f.bw_phase > 0)
                --f.bw_phase;
        }
        // patterns must recur (BBR: every 8 RTTs); a lone one ages out
        if (++f.since_pattern > 4 * 8)
        {
            f.bwest = 0;
            f.since_pattern = 0;
        }
        const uint32_t fam = uint32_t(g - 2) / m_c.k;
        const uint8_t model = GroupId(P::FAMILY_HYBRID, P::HYBRID_KIND_MODEL);
        if (f.bwest >= m_c.m_m)
            ng = model;
        else if (f.aggr >= m_c.m_pl)
            ng = GroupId(P::FAMILY_LOSS, SubGroupOfRtt(f.rtt_us));
        else if (f.aggr >= m_c.m_ld && fam == P::FAMILY_DELAY)
            ng = GroupId(P::FAMILY_HYBRID, P::HYBRID_KIND_LOSS_DELAY);
        else if (fam != P::FAMILY_HYBRID)
            ng = GroupId(fam, SubGroupOfRtt(f.rtt_us)); // RTT band may have moved
    }
    ++f.intervals;
    f.prev_pkts = n;
    f.prev_max_depth = d;
    // entering ant or mouse restarts the slow-start history; other changes keep it
    f.prev_valid = ng == g || ng >= 2;
    f.log_rate = lr;
    f.pkts = f.bytes = f.acks = f.max_depth = 0;
    f.aqm_dropped = false;
    f.int_start = t;
    if (ng != g)
        SetGroup(f, ng);
}

EnqResult
Pipeline::Enqueue(const Pkt& p)
{
    const uint64_t t = p.t_ns;
    EnqResult r{Verdict::ENQUEUED, -1, uint8_t(P::GROUP_ANT), 0, uint16_t(m_c.pv_max)};
    uint8_t slot = 0;
    if (p.tcp)
    {
        bool fwd;
        int idx = Lookup(p, fwd);
        r.flow = idx;
        if (idx >= 0)
        {
            Flow& f = m_flows[idx];
            const bool syn = (p.flags & SYN) && !(p.flags & ACK);
            if (f.group == 0xFF)
            {
                f.rtt_us = m_c.default_rtt_us;
                f.int_start = t;
                f.hs_pending = syn;
                f.syn_dir = fwd;
                f.syn_t = t;
                SetGroup(f, uint8_t(P::GROUP_MOUSE));
            }
            else if (f.hs_pending && fwd == f.syn_dir)
            {
                if (syn)
                    f.syn_t = t; // retransmitted SYN: measure from the last one
                else
                {
                    // RTT = first packet after the SYN in its direction - SYN (P4air)
                    uint64_t us = (t - f.syn_t) / 1000; // a shift by 10 on Tofino (us ~ ns >> 10)
                    f.rtt_us = uint32_t(std::clamp<uint64_t>(us, m_c.min_rtt_us, m_c.max_rtt_us));
                    f.hs_pending = false;
                    f.pkts = f.bytes = f.acks = f.max_depth = 0;
                    f.int_start = t; // the handshake interval is not classified
                }
            }
            else if (!f.hs_pending && t - f.int_start >= uint64_t(f.rtt_us) * 1000ULL)
                RollOver(f, t);
            if (p.payload > 0)
            {
                ++f.pkts;
                f.bytes += p.size;
            }
            else
                ++f.acks;
            f.last_seen = t;
            // Slow-start end by fair BDP: interval bytes reach (fair rate x RTT) >> bdp_shift,
            // compared in the log domain (no multiplication).
            if (f.group == P::GROUP_MOUSE && !f.hs_pending && !f.ss_dropped && p.payload > 0 &&
                Log2Q8(f.bytes) >= m_logFairRate + Log2Q8(f.rtt_us) - int32_t(m_c.bdp_shift << 8))
            {
                f.ss_dropped = true;
                SetGroup(f, GroupId(P::FAMILY_DELAY, SubGroupOfRtt(f.rtt_us)));
                if (m_c.ss_proactive_drop)
                {
                    r.group = f.group;
                    r.verdict = Verdict::DROP_PROACTIVE;
                    m_g[r.group].pkts++;
                    m_g[r.group].bytes += p.size;
                    m_g[r.group].drops++;
                    r.queue = QueueOf(f.group, f.slot);
                    return r;
                }
            }
            r.group = f.group;
            slot = f.slot;
            r.pv = DrawPv(f.group, f.log_rate, p.rand16 ? p.rand16 : NextRand());
        }
    }
    r.queue = QueueOf(r.group, slot);
    GroupStats& gs = m_g[r.group];
    gs.pkts++;
    gs.bytes += p.size;
    // traffic manager: Cocoa limit per queue and the port's shared buffer
    QueueState& q = m_q[r.queue];
    CocoaGuard(q, t);
    if (q.fifo.size() >= q.limit || (m_c.buffer_pkts && m_totalPkts >= m_c.buffer_pkts))
    {
        if (q.fifo.size() >= q.limit)
            CocoaOnFull(q, t);
        q.tail_drops++;
        gs.drops++;
        r.verdict = Verdict::DROP_LIMIT;
        return r;
    }
    q.fifo.push_back({p.size, t, r.flow, r.flow >= 0 ? m_flows[r.flow].gen : 0, r.pv, p.ect, r.group, q.bytes});
    q.bytes += p.size;
    ++m_totalPkts;
    if (q.idle)
    {
        q.idle_ns += t - q.idle_since;
        q.idle = false;
    }
    if (!q.active)
    {
        q.active = true;
        q.deficit = 0;
        m_active.push_back(r.queue);
    }
    return r;
}

DeqResult
Pipeline::Dequeue(uint64_t now)
{
    DeqResult r;
    while (!m_active.empty())
    {
        const uint8_t qi = m_active.front();
        QueueState& q = m_q[qi];
        if (q.fifo.empty())
        {
            m_active.pop_front();
            q.active = false;
            continue;
        }
        QueueState::Meta m = q.fifo.front();
        if (q.deficit < int32_t(m.size))
        {
            q.deficit += int32_t(m_c.quantum_bytes);
            m_active.pop_front();
            m_active.push_back(qi);
            continue;
        }
        q.fifo.pop_front();
        q.deficit -= int32_t(m.size);
        q.bytes -= m.size;
        --m_totalPkts;
        if (q.fifo.empty())
        {
            m_active.pop_front();
            q.active = false;
            q.deficit = 0;
            q.idle = true;
            q.idle_since = now;
        }
        q.sent++;
        q.li_min = std::min<uint32_t>(q.li_min, uint32_t(q.fifo.size()));
        r.valid = true;
        r.queue = qi;
        r.pv = m.pv;
        r.sojourn_ns = now - m.enq_t;
        q.max_delay_ns = std::max(q.max_delay_ns, r.sojourn_ns);
        // egress: the flow's maximum enqueue depth in its current interval
        if (m.flow >= 0 && m_flows[m.flow].gen == m.gen)
            m_flows[m.flow].max_depth = std::max(m_flows[m.flow].max_depth, m.enq_depth);
        // CTV toward the target delay, at most once per update interval
        if (now - q.ctv_last >= uint64_t(m_c.ctv_update_interval_us) * 1000ULL)
        {
            q.ctv_last = now;
            if (r.sojourn_ns > uint64_t(m_c.target_delay_us) * 1000ULL)
                q.ctv = uint16_t(std::min<uint32_t>(uint32_t(q.ctv) + m_c.ctv_step_up, q.ctv_hi));
            else
                q.ctv = uint16_t(std::max<int32_t>(int32_t(q.ctv) - int32_t(m_c.ctv_step_down), q.ctv_lo));
        }
        r.ctv = q.ctv;
        if (m_c.pv_aqm && m.pv < q.ctv)
        {
            if (m_c.ecn && m.ect)
            {
                r.action = Action::MARK;
                q.marks++;
                m_g[m.group].marks++;
            }
            else if (m.flow >= 0 && m_flows[m.flow].gen == m.gen && m_flows[m.flow].aqm_dropped)
            {
                // One loss per RTT is all a loss-based sender reacts to; more drops in
                // the same interval only cause timeouts. The flow's excess keeps
                // being signalled every interval until it backs off.
            }
            else
            {
                if (m.flow >= 0 && m_flows[m.flow].gen == m.gen)
                    m_flows[m.flow].aqm_dropped = true;
                r.action = Action::DROP;
                q.drops++;
                m_g[m.group].drops++;
                q.deficit += int32_t(m.size); // a dropped packet uses no link time
            }
        }
        CocoaGuard(q, now);
        return r;
    }
    return r;
}

void
Pipeline::CocoaOnFull(QueueState& q, uint64_t t)
{
    // a full queue ends the loss-free interval
    uint64_t li = t - q.li_start;
    if (li > q.longest_li)
    {
        q.longest_li = li;
        q.longest_li_min = q.li_min;
    }
    q.li_start = t;
    q.li_min = uint32_t(q.fifo.size());
    // grow if the queue went idle since the last full event: the buffer was too
    // small to keep the link busy (Cocoa: packets sent / active time x idle time)
    uint64_t span = t - q.int_start;
    if (q.idle_ns > 0 && span > q.idle_ns)
    {
        double inc = double(q.sent) * double(q.idle_ns) / double(span - q.idle_ns);
        double cap = q.limit * (m_c.cocoa_max_increase - 1.0);
        q.limit = uint32_t(std::min<double>(m_c.cocoa_max, q.limit + std::min(inc, cap)));
    }
    q.int_start = t;
    q.idle_ns = 0;
    q.sent = 0;
}

void
Pipeline::CocoaGuard(QueueState& q, uint64_t t)
{
    if (t - q.gi_start < q.gi_len)
        return;
    uint64_t L = q.longest_li;
    uint32_t M = q.longest_li_min;
    if (t - q.li_start > L)
    {
        L = t - q.li_start;
        M = q.li_min;
    }
    // the standing queue never drained during the longest loss-free interval: shrink by it
    q.limit = std::max<uint32_t>(m_c.cocoa_min, q.limit > M ? q.limit - M : 0);
    q.gi_len = std::min<uint64_t>(uint64_t(double(L) * m_c.cocoa_gi_mult),
                                  uint64_t(m_c.cocoa_max_gi_ms) * 1000000ULL);
    if (q.gi_len == 0)
        q.gi_len = uint64_t(m_c.cocoa_max_gi_ms) * 1000000ULL;
    q.gi_start = t;
    q.longest_li = 0;
    q.li_start = t;
    q.li_min = uint32_t(q.fifo.size());
}

void
Pipeline::ControllerTick(uint64_t now)
{
    // 1. populations (the ONOS app reads the per-group active-flow counters; the
    //    model scans its table, treating idle slots as expired)
    std::vector<uint32_t> n(m_nGroups, 0);
    uint32_t minRtt = UINT32_MAX, maxRtt = 0;
    for (const Flow& f : m_flows)
    {
        if (!f.valid || f.group == 0xFF)
            continue;
        if (now - f.last_seen > uint64_t(m_c.default_rtt_us) * 1000ULL * m_c.idle_intervals)
            continue;
        n[f.group]++;
        if (f.group >= 1)
        {
            minRtt = std::min(minRtt, f.rtt_us);
            maxRtt = std::max(maxRtt, f.rtt_us);
        }
    }
    for (uint32_t g = 0; g < m_nGroups; ++g)
        m_g[g].active = n[g];
    // BwEst thresholds as log2 Q8 constants (table entries written by the controller)
    m_bwUpQ8 = Q8(std::log2(1.0 + std::ldexp(1.0, -int(m_c.bwest_up_shift))));
    m_bwDownQ8 = Q8(std::log2(1.0 - std::ldexp(1.0, -int(m_c.bwest_down_shift))));
    // 2. fair rate (TVF centre, CTV range, slow-start BDP test): max-min at group
    //    granularity, as the ONOS app computes it from the same counters
    //    (PolicyCompiler.fairKbps): a long-lived group whose flows forwarded less
    //    than fair >> controller.limited_share_shift each since the last tick is
    //    limited elsewhere (or stalled); its rate and flows leave the division.
    std::vector<double> sentBps(m_nGroups, -1.0);
    const double dt = m_lastTick && now > m_lastTick ? double(now - m_lastTick) * 1e-9 : 0.0;
    for (uint32_t g = 0; g < m_nGroups; ++g)
    {
        GroupStats& s = m_g[g];
        const uint64_t dp = s.pkts - s.tick_pkts, db = s.bytes - s.tick_bytes, dd = s.drops - s.tick_drops;
        if (dt > 0)
            sentBps[g] = dp ? 8.0 * double(db) * double(dp - std::min(dp, dd)) / double(dp) / dt : 0.0;
        s.tick_pkts = s.pkts;
        s.tick_bytes = s.bytes;
        s.tick_drops = s.drops;
    }
    m_lastTick = now;
    SetFairRate(FairRate(double(m_c.link_rate_bps), n, sentBps, 2, uint32_t(P::CONTROLLER_LIMITED_SHARE_SHIFT),
                         n[P::GROUP_MOUSE]));
    // 3. RTT bands: one boundary (K = 2) at the geometric middle of the RTTs seen,
    //    only when they differ by 2x or more
    if (m_c.k >= 2 && maxRtt >= 2ULL * minRtt && minRtt != UINT32_MAX)
        m_rttBoundary = uint32_t(std::sqrt(double(minRtt) * double(maxRtt)));
    else
        m_rttBoundary = m_c.max_rtt_us + 1;
    // 4. queues: ant 0, mouse 1; long-lived groups with flows share the rest in
    //    proportion to their flows (each at least one); empty groups park on a
    //    spare queue until the next tick.
    const uint32_t Q = m_c.num_queues;
    std::vector<uint32_t> nq(m_nGroups, 0);
    uint32_t nonEmpty = 0, llFlows = 0;
    for (uint32_t g = 2; g < m_nGroups; ++g)
        if (n[g])
        {
            ++nonEmpty;
            llFlows += n[g];
        }
    const bool needSpare = nonEmpty < m_nGroups - 2;
    const uint32_t first = needSpare ? 3 : 2;
    const uint32_t avail = Q > first ? Q - first : 0;
    std::vector<uint8_t> owner(Q, 0xFF);
    if (nonEmpty > 0 && avail >= nonEmpty)
    {
        std::vector<std::pair<double, uint32_t>> rem;
        uint32_t given = 0;
        for (uint32_t g = 2; g < m_nGroups; ++g)
        {
            if (!n[g])
                continue;
            double share = double(n[g]) * avail / llFlows;
            nq[g] = std::max<uint32_t>(1, uint32_t(share));
            given += nq[g];
            rem.push_back({share - std::floor(share), g});
        }
        while (given > avail) // the at-least-one rule over-allocated: take from the largest
        {
            uint32_t big = 2;
            for (uint32_t g = 2; g < m_nGroups; ++g)
                if (nq[g] > nq[big])
                    big = g;
            nq[big]--;
            given--;
        }
        std::sort(rem.begin(), rem.end(), [](auto& a, auto& b) { return a.first > b.first; });
        for (size_t i = 0; given < avail; i = (i + 1) % rem.size(), ++given)
            nq[rem[i].second]++;
    }
    uint32_t next = first;
    for (uint32_t g = 0; g < m_nGroups; ++g)
    {
        for (uint32_t s = 0; s < Q; ++s)
        {
            uint8_t qid;
            if (g == P::GROUP_ANT)
                qid = 0;
            else if (g == P::GROUP_MOUSE)
                qid = 1 % Q;
            else if (nq[g] == 0)
                qid = uint8_t(2 % Q);
            else
                qid = uint8_t(next + s % nq[g]);
            m_qmap[g * Q + s] = qid;
            owner[qid] = uint8_t(g);
        }
        next += nq[g];
    }
    // 5. CTV range of each queue (params aqm.ctv_floor_bins / ctv_ceiling_bins; the ONOS
    // app computes the same range into aqm_cfg)
    const uint32_t fairBin = m_fairBin;
    for (uint32_t qi = 0; qi < Q; ++qi)
    {
        uint8_t g = owner[qi] == 0xFF ? uint8_t(P::GROUP_MOUSE) : owner[qi];
        QueueState& q = m_q[qi];
        // Ceiling: the PV ctv_ceiling_bins (3: x 1.54) above the fair rate's bin. The AQM may take
        // a flow's excess well above its fair share, never the share itself: when
        // every flow is near its share and the delay is still above target (many
        // flows, few packets per round-robin round) an unbounded CTV winds up and
        // starves them all; a ceiling at the fair rate itself still hit flows whose
        // per-interval rate estimate is noisy (docs/eval-model.md).
        q.ctv_lo = m_tvf[g][std::min(m_c.tvf_steps - 1, fairBin + uint32_t(P::AQM_CTV_FLOOR_BINS))];
        q.ctv_hi = m_tvf[g][std::min(m_c.tvf_steps - 1, fairBin + uint32_t(P::AQM_CTV_CEILING_BINS))];
        q.ctv = std::clamp(q.ctv, q.ctv_lo, q.ctv_hi);
    }
}

double
Pipeline::FairRate(double link, const std::vector<uint32_t>& n, const std::vector<double>& sent, uint32_t first,
                   uint32_t shift, uint32_t extraFlows)
{
    double flows = extraFlows;
    for (uint32_t g = first; g < n.size(); ++g)
        flows += n[g];
    const double plain = link / std::max(1.0, flows);
    double fair = plain, restLink = link, restFlows = flows;
    std::vector<bool> limited(n.size(), false);
    for (bool changed = true; changed;)
    {
        changed = false;
        for (uint32_t g = first; g < n.size(); ++g)
            if (!limited[g] && n[g] && sent[g] >= 0 && sent[g] < fair * n[g] / double(1u << shift))
            {
                limited[g] = changed = true;
                restLink -= sent[g];
                restFlows -= n[g];
            }
        if (changed)
            fair = restFlows > 0 ? std::max(plain, restLink / restFlows) : link;
    }
    return std::min(fair, link);
}

int
Pipeline::GroupOf(uint32_t src, uint16_t sport, uint32_t dst, uint16_t dport) const
{
    const Flow* f = FindFlow(src, sport, dst, dport);
    return f ? int(f->group) : -1;
}

const Flow*
Pipeline::FindFlow(uint32_t src, uint16_t sport, uint32_t dst, uint16_t dport) const
{
    const FlowKey k = KeyOf(src, sport, dst, dport);
    const Flow& f = m_flows[uint32_t(k.hash) & (m_c.flow_table_size - 1)];
    if (!f.valid || f.group == 0xFF || f.a_ip != uint32_t(k.lo >> 16) || f.a_port != uint16_t(k.lo) ||
        f.b_ip != uint32_t(k.hi >> 16) || f.b_port != uint16_t(k.hi))
        return nullptr;
    return &f;
}

std::string
Pipeline::StatsJson() const
{
    std::ostringstream o;
    o << "{\"groups\":[";
    for (uint32_t g = 0; g < m_nGroups; ++g)
    {
        const GroupStats& s = m_g[g];
        o << (g ? "," : "") << "{\"group\":" << g << ",\"name\":\"" << P::GROUP_NAMES[g]
          << "\",\"pkts\":" << s.pkts << ",\"bytes\":" << s.bytes << ",\"drops\":" << s.drops
          << ",\"marks\":" << s.marks << ",\"active_flows\":" << s.active << "}";
    }
    o << "],\"queues\":[";
    for (size_t i = 0; i < m_q.size(); ++i)
    {
        const QueueState& q = m_q[i];
        o << (i ? "," : "") << "{\"queue\":" << i << ",\"ctv\":" << q.ctv
          << ",\"max_delay_us\":" << q.max_delay_ns / 1000 << ",\"limit\":" << q.limit
          << ",\"drops\":" << q.drops << ",\"marks\":" << q.marks << ",\"tail_drops\":" << q.tail_drops
          << "}";
    }
    o << "],\"queued_pkts\":" << m_totalPkts << ",\"active_queues\":" << m_active.size() << ",\"collisions\":" << m_collisions << ",\"rtt_boundary_us\":" << m_rttBoundary << "}";
    return o.str();
}

} // namespace ccfair
