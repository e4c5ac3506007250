// SPDX-License-Identifier: Apache-2.0
// Transliteration of p4/tna/ccfair.p4 (see pipeline.h). Comments name the P4
// control, table or RegisterAction each block stands for; docs/algorithm.md
// cites the program line by line.
#include "pipeline.h"

#include "ccfair-params.h"
#include "ccfair-tables.h"

#include <algorithm>
#include <iterator>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace ccfair
{
namespace P = ccfair::params;
namespace G = ccfair::gen;

static_assert(Pipeline::kSlots == uint32_t(G::SLOT_MASK + 1), "queue_map slots = SLOT_MASK + 1");
static_assert(uint32_t(P::QUEUES_SLOTS_PER_GROUP) == Pipeline::kSlots, "queues.slots_per_group");
static_assert(sizeof(P::QUEUES_DWRR_WEIGHTS) / sizeof(P::QUEUES_DWRR_WEIGHTS[0]) == size_t(P::QUEUES_PER_PORT),
              "queues.dwrr_weights: one per queue");
static_assert(sizeof(G::RTT_BAND_BOUNDARIES) / sizeof(G::RTT_BAND_BOUNDARIES[0]) == 1,
              "the model's rtt_band has one boundary (policy.rtt_band_boundaries_us)");

namespace
{
// define.p4
constexpr uint8_t CLS_NONE = 0, CLS_NEW = 1, CLS_PKT = 2, CLS_END = 3;
constexpr uint8_t INTERVAL_ACK = 2;
constexpr uint8_t INTERVAL_RESTART = 3; // the handshake sample: the first interval starts here
constexpr uint16_t RATE_S_NONE = 0xFFFF; // flow_rate_s.lo with no finished interval (never a log rate)
constexpr uint16_t SS_ACTIVE = 0, SS_DONE = 1, SS_ENDED_NOW = 2;
constexpr uint8_t FLOW_FAMILY_DELAY = 0, FLOW_FAMILY_LOSS = 2; // flow_family's values (define.p4): back-offs, saturating; not P::FAMILY_*
constexpr uint32_t RTT_PENDING = 0x80000000u;
constexpr uint16_t TRK_COLLIDE = 0;
constexpr uint16_t STATS_IDX = 0; // the model's one port: stats index 0
constexpr uint8_t GROUP_ANT = uint8_t(P::GROUP_ANT), GROUP_MOUSE = uint8_t(P::GROUP_MOUSE);
// The model-based groups: hybrid kind "model" and the hybrid sub-groups above it, the top of the
// group range (gen_tables.py model_groups; PolicyCompiler.firstModelGroup, lastModelGroup)
constexpr uint8_t FIRST_MODEL_GROUP = uint8_t(P::GROUP_HYBRID_BASE + P::HYBRID_KIND_MODEL);
constexpr uint8_t LAST_MODEL_GROUP = uint8_t(P::GROUP_HYBRID_BASE + P::GROUPS_K - 1);
// The delay family's groups (PolicyCompiler.isDelayGroup)
constexpr bool IsDelayGroup(uint32_t g) { return g >= uint32_t(P::GROUP_DELAY_BASE) && g < uint32_t(P::GROUP_DELAY_BASE + P::GROUPS_K); }

// Tofino's saturating |+| and |-| at the field's width.
inline uint16_t SatSub16(uint16_t a, uint16_t b) { return a > b ? uint16_t(a - b) : 0; }
inline uint16_t SatAdd16(uint16_t a, uint16_t b) { return uint16_t(std::min<uint32_t>(uint32_t(a) + b, 0xFFFF)); }
inline uint8_t SatSub8(uint8_t a, uint8_t b) { return a > b ? uint8_t(a - b) : 0; }
inline uint8_t SatAdd8(uint8_t a, uint8_t b) { return uint8_t(std::min<uint32_t>(uint32_t(a) + b, 0xFF)); }
inline uint32_t SatSub32(uint32_t a, uint32_t b) { return a > b ? a - b : 0; }

// A generated ternary log table (gen_tables.py buckets(width, mantissa)) is
// ordered by the key's leading-one position p, 2^min(mantissa, p) entries each:
// the matching entry's index follows from p and the next bits, so the model
// finds it without a scan. TestTables checks this against first-match.
template <size_t N>
uint16_t
BucketLookup(const G::TEntry (&t)[N], int mantissa, uint32_t x, uint16_t miss)
{
    if (x == 0)
        return miss;
    const int p = 31 - __builtin_clz(x);
    size_t off = 0;
    for (int q = 0; q < p; ++q)
        off += size_t(1) << std::min(mantissa, q);
    const int m = std::min(mantissa, p);
    const size_t i = off + ((x >> (p - m)) & ((1u << m) - 1));
    return i < N ? t[i].result : miss;
}

void
Put(uint8_t*& o, uint64_t v, int bytes)
{
    for (int i = bytes - 1; i >= 0; --i)
        *o++ = uint8_t(v >> (8 * i));
}
} // namespace

// ingress metadata (IngressPipe md.* and bridged.*)
struct Pipeline::IgMd
{
    // parser
    bool tcp = false, syn_only = false, syn_ack = false, tcp_ack = false, fin_rst_syn = false, fin_rst = false;
    uint16_t l4_sport = 0, l4_dport = 0;
    uint8_t ip_proto = 0;
    uint32_t pkt_len32 = 0;
    uint16_t data_pkt = 1;
    uint16_t fg_new = uint16_t(0xC000 | GROUP_MOUSE); // valid, port unknown, mouse
    // times (init_md, init_times, init_now16)
    uint32_t ig_ts = 0, ts_pend = 0;
    int32_t ts_s = 0;
    uint16_t now16 = 0;
    // flow tracker
    uint8_t track = 0, is_update = 0, fg_written = 0;
    uint32_t ip_lo = 0, ip_hi = 0;
    uint16_t port_lo = 0, port_hi = 0, sig = 0, trk = 0, fg_old = 0;
    uint32_t rtt_raw = 0, deadline = 0, ts_2 = 0;
    uint8_t rtt_smp = 0, restart = 0;
    uint8_t dir = 0; // 0: from the lower (address, port) end
    uint8_t slot = 0;
    Bridged bridged;
};

// egress metadata (EgressPipe md.*)
struct Pipeline::EgMd
{
    uint32_t eg_ts = 0;
    uint16_t ctv_now = 0, update_tick = 0;
    uint8_t on = 0, cls_op = CLS_NONE;
    // port_cfg (egress)
    uint16_t fair_fine = 0, ant_max_pkts = 0;
    uint8_t m_m1 = 0, ss_drop_en = 0, family_forget = 0;
    // classifier
    uint16_t log_b = 0, log_r = 0, lrate = 0, lr_pv = 0, sparse_gap = 0, bdp_gap = 0, ss_in = 0;
    uint16_t ss_state = SS_ACTIVE;
    uint8_t band = 0, fell = 0, ign = 0, family = 0, t_mm = 0;
    uint8_t new_group = 0, ss_drop = 0, upd_ok = 0;
    // marker
    uint16_t nlog_u = 0, pos = 0, pv = 0;
    // aqm
    uint32_t delay_us = 0, delay_over = 0, gate_over = 0, depth = 0, depth_over = 0, limit_cells = 0;
    uint16_t ctv = 0, pv_below = 0;
    uint8_t ctv_tick = 0, drop = 0, pv_drop = 0, mark = 0;
};

QueueLayout
ParseQueueLayout(const std::string& text, const std::string& field)
{
    if (text == "shared")
        return QueueLayout::Shared;
    if (text == "isolated")
        return QueueLayout::Isolated;
    throw std::invalid_argument(field + ": unknown queue layout \"" + text + "\" (allowed: shared, isolated)");
}

namespace
{
// params groups.families by FAMILY_* index (the generated header has the indices only)
const char* FamilyName(uint32_t f)
{
    return f == uint32_t(P::FAMILY_DELAY) ? "delay" : f == uint32_t(P::FAMILY_LOSS) ? "loss" : "hybrid";
}
constexpr uint32_t kFamilies = uint32_t(P::NUM_GROUPS - 2) / uint32_t(2); // groups.k = 2 (checked in Pipeline)
} // namespace

std::vector<double>
ParseFamilyWeights(const std::string& text, const std::string& field)
{
    if (text.empty())
        return {};
    std::string known;
    for (uint32_t f = 0; f < kFamilies; ++f)
        known += std::string(f ? ", " : "") + FamilyName(f);
    std::vector<double> w(kFamilies, 1.0); // unlisted families weigh 1 (FairnessIntent.weight)
    std::vector<bool> seen(kFamilies, false);
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');)
    {
        const size_t colon = item.find(':');
        const std::string name = item.substr(0, colon);
        uint32_t f = 0;
        while (f < kFamilies && name != FamilyName(f))
            ++f;
        if (f == kFamilies)
            throw std::invalid_argument(field + "." + name + ": unknown family (known: " + known + ")");
        if (seen[f])
            throw std::invalid_argument(field + "." + name + ": given twice");
        seen[f] = true;
        const std::string num = colon == std::string::npos ? "" : item.substr(colon + 1);
        size_t used = 0;
        double v = 0;
        try
        {
            v = std::stod(num, &used);
        }
        catch (const std::exception&)
        {
            used = 0;
        }
        if (num.empty() || used != num.size())
            throw std::invalid_argument(field + "." + name + ": expected a number, got \"" + num + "\"");
        if (!(v >= P::POLICY_WEIGHT_MIN && v <= double(P::POLICY_WEIGHT_MAX)))
        {
            std::ostringstream o;
            o << field << "." << name << ": " << v << " outside [" << P::POLICY_WEIGHT_MIN << ", "
              << P::POLICY_WEIGHT_MAX << "]";
            throw std::invalid_argument(o.str());
        }
        w[f] = v;
    }
    return w;
}

Config
Config::Defaults()
{
    Config c;
    c.link_rate_bps = 100000000;
    c.num_queues = uint32_t(P::QUEUES_PER_PORT);
    c.quantum_bytes = 1514;
    c.dwrr_weights.assign(std::begin(P::QUEUES_DWRR_WEIGHTS), std::end(P::QUEUES_DWRR_WEIGHTS));
    c.flow_table_size = uint32_t(P::FLOWS_PER_PIPE_TOFINO); // one Tofino pipe's table, here for one port
    c.default_rtt_units = uint32_t(P::FLOW_DEFAULT_RTT_US);
    c.interval_min_units = uint32_t(G::INTERVAL_MIN_UNITS);
    c.ant_max_pkts = uint32_t(P::FLOW_ANT_MAX_PKTS_PER_INTERVAL);
    c.m_m = uint32_t(P::CLASSIFIER_M_M);
    c.bdp_shift = uint32_t(P::CLASSIFIER_BDP_SHIFT);
    c.ss_proactive_drop = P::CLASSIFIER_SS_PROACTIVE_DROP != 0;
    c.family_forget_intervals = uint32_t(P::CLASSIFIER_FAMILY_FORGET_INTERVALS);
    c.delay_target_pkts = uint32_t(P::QUEUES_DELAY_TARGET_PKTS);
    c.k = uint32_t(P::GROUPS_K);
    c.rtt_boundary_units = uint32_t(G::RTT_BAND_BOUNDARIES[0]);
    c.tvf_steps = uint32_t(P::TVF_RATE_STEPS);
    c.tvf_min_kbps = uint32_t(P::TVF_RATE_MIN_KBPS);
    c.tvf_steps_per_decade = uint32_t(P::TVF_STEPS_PER_DECADE);
    c.pv_max = uint32_t(P::TVF_PV_MAX);
    c.tvf_half_span_decades = uint32_t(P::TVF_HALF_SPAN_DECADES);
    c.tvf_scale_bin = uint32_t(std::floor(double(P::TVF_STEPS_PER_DECADE) *
                                          std::log10(double(P::TVF_CENTRE_KBPS) / double(P::TVF_RATE_MIN_KBPS)) + 1e-9));
    c.target_delay_units = uint32_t(P::AQM_TARGET_DELAY_US);
    c.pv_gate_shift = uint32_t(P::AQM_PV_GATE_SHIFT);
    c.ctv_period_shift = uint32_t(G::CTV_PERIOD_SHIFT);
    c.ctv_step_up = uint32_t(P::AQM_CTV_STEP_UP);
    c.ctv_step_down = uint32_t(P::AQM_CTV_STEP_DOWN);
    c.ctv_floor_bins = int32_t(P::AQM_CTV_FLOOR_BINS);
    c.ctv_ceiling_bins = int32_t(P::AQM_CTV_CEILING_BINS);
    c.model_shift_bins = int32_t(P::TVF_MODEL_SHIFT_BINS);
    c.queue_layout = ParseQueueLayout(P::QUEUES_LAYOUT, "params queues.layout");
    c.ecn = P::AQM_ECN != 0;
    c.cell_bytes = uint32_t(P::POLICY_CELL_BYTES_TOFINO);
    c.cells_per_pkt = (uint32_t(P::POLICY_BUFFER_PKT_BYTES) + c.cell_bytes - 1) / c.cell_bytes;
    c.cocoa_initial = uint32_t(P::COCOA_INITIAL_LIMIT_PKTS);
    c.cocoa_min = uint32_t(P::COCOA_MIN_LIMIT_PKTS);
    c.cocoa_max = uint32_t(P::COCOA_MAX_LIMIT_PKTS);
    c.cocoa_max_gi_ms = uint32_t(P::COCOA_MAX_GI_MS);
    c.cocoa_gi_mult = P::COCOA_GI_MULTIPLIER;
    c.cocoa_max_increase = P::COCOA_MAX_INCREASE;
    c.buffer_pkts = 0;
    c.recompute_period_ns = uint64_t(P::CONTROLLER_RECOMPUTE_PERIOD_MS) * 1000000ULL;
    c.corr_gain = P::CONTROLLER_CORRECTION_GAIN;
    c.corr_step_bins = P::CONTROLLER_CORRECTION_STEP_BINS;
    c.corr_max_bins = P::CONTROLLER_CORRECTION_MAX_BINS;
    c.corr_min_util = P::CONTROLLER_CORRECTION_MIN_UTIL;
    c.corr_release = P::CONTROLLER_CORRECTION_RELEASE;
    c.corr_quantum_bins = P::CONTROLLER_CORRECTION_QUANTUM_BINS;
    return c;
}

Pipeline::Pipeline(const Config& c, uint64_t seed)
    : m_c(c),
      m_rng(seed ? seed : 1)
{
    if (m_c.flow_table_size == 0 || (m_c.flow_table_size & (m_c.flow_table_size - 1)))
        throw std::invalid_argument("ccfair: flow_table_size must be a power of two, got " +
                                    std::to_string(m_c.flow_table_size));
    if (m_c.k != 2)
        throw std::invalid_argument("ccfair: the model's rtt_band has one boundary (groups.k = 2), got k = " +
                                    std::to_string(m_c.k));
    m_idxMask = m_c.flow_table_size - 1;
    m_idxBits = uint32_t(__builtin_ctz(m_c.flow_table_size));
    if (m_idxBits > 24) // define.p4: EG_SIG needs 8 hash bits above the index
        throw std::invalid_argument("ccfair: flow_table_size above 2^24 leaves no EG_SIG bits, got " +
                                    std::to_string(m_c.flow_table_size));
    m_nGroups = uint32_t(P::NUM_GROUPS);
    const size_t n = m_c.flow_table_size;
    m_flowSig.assign(n, {});
    m_flowRtt.assign(n, 0);
    m_flowDeadline.assign(n, 0);
    m_flowPkts.assign(n, 0);
    m_flowBytes.assign(n, 0);
    m_flowGroup.assign(n, 0);
    m_flowSeq.assign(n, {});
    m_flowRetx.assign(n, {});
    m_flowRate.assign(n, 0);
    m_flowRateS.assign(n, Pair16{RATE_S_NONE, 0});
    m_flowIgnore.assign(n, 0);
    m_flowSs.assign(n, {});
    m_flowFamily.assign(n, 0);
    m_flowEgSig.assign(n, 0);
    m_key.assign(n, {0, 0, 0, 0});
    m_pgFlowEnter.assign(size_t(1) << 14, 0);
    m_pgFlowLeave.assign(size_t(1) << 14, 0);
    m_q.assign(m_c.num_queues, QueueState{});
    m_c.dwrr_weights.resize(m_c.num_queues, 1); // a model with more queues (NumQueues) weighs the rest 1
    m_g.assign(m_nGroups, GroupStats{});
    m_queueMap.assign(size_t(m_nGroups) * kSlots, 0);
    m_tvf.assign(m_nGroups, std::vector<uint16_t>(m_c.tvf_steps, uint16_t(m_c.pv_max)));
    m_shift.assign(m_nGroups, 0.0);
    m_corr.assign(m_nGroups, 0.0);
    m_corrPrevFlows.assign(m_nGroups, 0);
    if (!m_c.family_weights.empty() && m_c.family_weights.size() != (m_nGroups - 2) / m_c.k)
        throw std::invalid_argument("ccfair: family_weights needs one weight per family (" +
                                    std::to_string((m_nGroups - 2) / m_c.k) + "), got " +
                                    std::to_string(m_c.family_weights.size()));
    for (double w : m_c.family_weights)
        if (!(w > 0))
            throw std::invalid_argument("ccfair: family_weights must be positive");
    for (auto& q : m_q)
    {
        q.limit = m_c.cocoa_initial;
        q.gi_len = uint64_t(m_c.cocoa_max_gi_ms) * 1000000ULL;
        q.gi_start = q.li_start = q.int_start = q.idle_since = m_c.clock_offset_ns;
    }
    ControllerTick(0);
}

// ---------------------------------------------------------------- const tables and hashes

uint16_t
Pipeline::LogBytes(uint32_t x)
{
    return BucketLookup(G::LOG_BYTES, G::BYTES_MANTISSA, x, 0);
}

uint16_t
Pipeline::LogRtt(uint32_t x)
{
    return BucketLookup(G::LOG_RTT, G::BYTES_MANTISSA, x, 0);
}

uint16_t
Pipeline::LogU(uint16_t u)
{
    return BucketLookup(G::LOG_U, G::U_MANTISSA, u, 0xFFFF);
}

uint8_t
Pipeline::GroupOfKeys(uint16_t sparse_gap, uint16_t ss_state, uint8_t t_mm, uint8_t family, uint8_t band) const
{
    const uint16_t k[5] = {sparse_gap, ss_state, t_mm, family, band};
    for (const G::GroupRow& r : G::GROUP_OF)
    {
        bool hit = true;
        for (int i = 0; i < 5 && hit; ++i)
            hit = (k[i] & r.mask[i]) == r.value[i];
        if (hit)
            return r.group;
    }
    return GROUP_ANT; // const default_action
}

uint32_t
Pipeline::Crc32(const uint8_t* d, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; ++i)
    {
        c ^= d[i];
        for (int b = 0; b < 8; ++b)
            c = (c & 1) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
    }
    return ~c;
}

uint32_t
Pipeline::FlowHash(uint32_t src, uint16_t sport, uint32_t dst, uint16_t dport, uint8_t proto)
{
    uint8_t buf[13], *o = buf;
    Put(o, std::min(src, dst), 4), Put(o, std::max(src, dst), 4);
    Put(o, std::min(sport, dport), 2), Put(o, std::max(sport, dport), 2), Put(o, proto, 1);
    return Crc32(buf, 13);
}

uint16_t
Pipeline::Crc16(const uint8_t* d, size_t n) // CRC-16/ARC, as BMv2's crc16 and bf-p4c's crc_16
{
    uint16_t c = 0;
    for (size_t i = 0; i < n; ++i)
    {
        c ^= d[i];
        for (int b = 0; b < 8; ++b)
            c = (c & 1) ? uint16_t((c >> 1) ^ 0xA001) : uint16_t(c >> 1);
    }
    return c;
}

uint16_t
Pipeline::TvfPv(uint8_t group, uint16_t lr_pv, uint16_t u) const
{
    const uint16_t pos = SatSub16(lr_pv, LogU(u));
    const uint32_t bin = (pos >> G::FINE_SHIFT) & 0xFF; // pos[9:2]
    return bin < m_c.tvf_steps ? m_tvf[group][bin] : uint16_t(m_c.pv_max); // tvf miss: default pv_max
}

uint16_t
Pipeline::NextRand()
{
    m_rng ^= m_rng >> 12;
    m_rng ^= m_rng << 25;
    m_rng ^= m_rng >> 27;
    return uint16_t((m_rng * 2685821657736338717ULL) >> 48);
}

// ---------------------------------------------------------------- ingress

// FlowTracker (flow_tracker.p4), statement by statement of its apply block.
void
Pipeline::FlowTracker(const Pkt& p, IgMd& md)
{
    // symmetric(), hash_idx(), hash_sig()
    md.ip_lo = std::min(p.src, p.dst);
    md.ip_hi = std::max(p.src, p.dst);
    md.port_lo = std::min(md.l4_sport, md.l4_dport);
    md.port_hi = std::max(md.l4_sport, md.l4_dport);
    md.dir = (p.src > p.dst || (p.src == p.dst && md.l4_sport > md.l4_dport)) ? 1 : 0;
    uint8_t buf[13], *o = buf;
    Put(o, md.ip_lo, 4), Put(o, md.ip_hi, 4), Put(o, md.port_lo, 2), Put(o, md.port_hi, 2), Put(o, md.ip_proto, 1);
    md.bridged.flow_idx = Crc32(buf, 13);
    o = buf;
    Put(o, md.port_hi, 2), Put(o, md.ip_hi, 4), Put(o, md.port_lo, 2), Put(o, md.ip_lo, 4);
    md.sig = uint16_t(Crc16(buf, 12) & 0x7FFF); // Hash<bit<15>>
    const uint32_t idx = md.bridged.flow_idx & m_idxMask;

    // sig_check (flow_sig): claim an empty / expired slot, hit, or collision (0)
    if (md.track && md.tcp)
    {
        SigPair& v = m_flowSig[idx];
        if (uint16_t(md.now16 - v.seen) > uint16_t(G::EXPIRE_UNITS))
        {
            v.sig = uint16_t(md.sig + 0x8000); // never 0: an empty slot matches no flow (defect 11)
            v.seen = md.now16;
            md.trk = v.seen;
            m_key[idx] = {p.src, p.sport, p.dst, p.dport}; // model-only: the tuple, for traces
        }
        else if (uint16_t(v.sig - md.sig) == 0x8000)
        {
            v.seen = uint16_t(md.now16 - 1);
            md.trk = v.seen;
        }
        else
            md.trk = 0;
    }

    // rtt_op (flow_rtt): after the signature check; a collision leaves the holder's RTT alone
    if (md.track && md.tcp && md.trk != TRK_COLLIDE)
    {
        uint32_t& v = m_flowRtt[idx];
        if (md.syn_only) // rtt_syn
        {
            v = md.ts_pend;
            md.rtt_raw = 0;
        }
        else if ((md.trk & 1) == 0) // rtt_claim: a claim without a SYN clears a pending SYN time older than
        {                           // max_rtt_us (defect 9); outputs the value before the update
            md.rtt_raw = v;
            if (v >= RTT_PENDING && uint32_t(md.ts_pend - uint32_t(G::RTT_MAX_UNITS)) >= v)
                v = 0;
        }
        else if (md.syn_ack) // rtt_read
            md.rtt_raw = v;
        else // rtt_sample: outputs the value before the update (a pending time = sample done)
        {
            md.rtt_raw = v;
            if (v >= RTT_PENDING)
                v = md.ts_pend >= v ? md.ts_pend - v : 0; // 0 across a wrap of the pending time (defect 16)
            md.rtt_smp = 1;
            md.ts_2 = md.bridged.ig_ts + md.ts_pend;
        }
    }
    if (md.track)
        md.slot = uint8_t(md.sig & G::SLOT_MASK);

    // untracked_count
    if (md.track && md.trk == TRK_COLLIDE)
        ++m_untracked[md.tcp ? 0 : 1];

    // group_op (flow_group): new slot (trk bit 0 clear) or a SYN -> group_write; FIN or RST ->
    // group_close (the word becomes 0: the flow leaves its group now); hit -> group_read
    if (md.track && md.trk != TRK_COLLIDE)
    {
        uint16_t& v = m_flowGroup[idx];
        md.bridged.tracked = 1;
        md.fg_old = v;
        if ((md.trk & 1) == 0 || md.syn_only)
        {
            md.bridged.flow_new = 1;
            md.fg_written = 1;
            v = md.fg_new;
        }
        else if (md.fin_rst) // group_close_op
        {
            md.fg_written = 1;
            md.fg_new = 0;
            v = 0;
        }
    }

    // rtt_fix (const, p4/shared/entries/rtt_fix.p4): also computes the deadline
    const uint32_t def = m_c.default_rtt_units;
    if (md.rtt_smp && (md.rtt_raw & RTT_PENDING)) // use_sample: this packet completes the handshake sample
    {
        md.bridged.rtt_us = md.ts_pend - md.rtt_raw;
        md.deadline = md.ts_2 - md.rtt_raw;
        md.restart = 1;
    }
    else if (md.rtt_raw == 0 || (md.rtt_raw & RTT_PENDING)) // use_default_rtt
    {
        md.bridged.rtt_us = def;
        md.deadline = md.bridged.ig_ts + def;
    }
    else if ((md.rtt_raw & 0xFFFFFF80u) == 0) // use_min_rtt
    {
        md.bridged.rtt_us = uint32_t(G::RTT_MIN_UNITS);
        md.deadline = md.bridged.ig_ts + uint32_t(G::RTT_MIN_UNITS);
    }
    else if ((md.rtt_raw & 0xFFF00000u) == 0) // clamp_rtt: below 2^20 units the deadline uses the raw sample
    {
        md.bridged.rtt_us = std::min(md.rtt_raw, uint32_t(G::RTT_MAX_UNITS));
        md.deadline = md.bridged.ig_ts + md.rtt_raw;
    }
    else // use_max_rtt (default action): from 2^20 units on, max_rtt_us for both (defect 9)
    {
        md.bridged.rtt_us = uint32_t(G::RTT_MAX_UNITS);
        md.deadline = md.bridged.ig_ts + uint32_t(G::RTT_MAX_UNITS);
    }

    // interval_floor (const, prefixes of 0..W-1 on the RTT rtt_fix chose): an interval lasts
    // at least W = flow.min_interval_us; the RTT itself (bridged rtt_us) stays raw
    if (md.bridged.rtt_us < m_c.interval_min_units)
        md.deadline = md.bridged.ig_ts + m_c.interval_min_units;

    // pure_ack: ACK only, no payload -> not a data packet, its length not counted
    if (md.tcp && md.tcp_ack && !md.fin_rst_syn && p.payload == 0)
    {
        md.data_pkt = 0;
        md.pkt_len32 = 0;
    }

    // group_set
    if (md.bridged.tracked && md.bridged.flow_new)
        md.bridged.group = GROUP_MOUSE;
    else if (md.bridged.tracked)
        md.bridged.group = uint8_t(md.fg_old & 0x1F);

    // seq_op (flow_seq): per direction, the highest sequence number a data segment carried (0:
    // none yet); a data segment not above it is a retransmission. A SYN or a claim starts both.
    if (md.track && md.tcp && md.trk != TRK_COLLIDE)
    {
        Pair32& v = m_flowSeq[idx];
        uint32_t& mine = md.dir ? v.hi : v.lo;
        uint32_t& other = md.dir ? v.lo : v.hi;
        if ((p.flags & SYN) || (md.trk & 1) == 0) // seq_new_lo / seq_new_hi
        {
            mine = p.seq;
            other = 0;
        }
        else if (md.data_pkt) // seq_chk_lo / seq_chk_hi
        {
            if (mine == 0 || int32_t(p.seq - mine) > 0)
                mine = p.seq;
            else
                md.bridged.retx = 1;
        }
    }

    DeadlineOp(md);

    // pkts_op, bytes_op (flow_pkts, flow_bytes): INTERVAL_ACK has no entry
    if (md.bridged.tracked && (md.bridged.interval_end == 1 || md.bridged.interval_end == INTERVAL_RESTART))
    {
        md.bridged.int_pkts = m_flowPkts[idx]; // pkts_end
        m_flowPkts[idx] = md.data_pkt;
        md.bridged.int_bytes = m_flowBytes[idx]; // bytes_end
        m_flowBytes[idx] = md.pkt_len32;
    }
    else if (md.bridged.tracked && md.bridged.interval_end == 0)
    {
        m_flowPkts[idx] = SatAdd16(m_flowPkts[idx], md.data_pkt); // pkts_inc
        m_flowBytes[idx] += md.pkt_len32;                         // bytes_inc (wraps)
    }

    // retx_op (flow_retx): the retransmission run at an interval end (bridged int_retx); like
    // pkts_op, the packet that ends an interval counts in the next one
    if (md.bridged.tracked)
    {
        Pair8& r = m_flowRetx[idx];
        if (md.bridged.flow_new || md.bridged.interval_end == INTERVAL_RESTART) // retx_reset
            r = {md.bridged.retx, 0};
        else if (md.bridged.interval_end == 1) // retx_end
        {
            r.hi = r.lo != 0 ? SatAdd8(r.hi, 1) : 0;
            r.lo = md.bridged.retx;
            md.bridged.int_retx = r.hi;
        }
        else // retx_pkt
            r.lo = uint8_t(r.lo | md.bridged.retx);
    }
}

// deadline_op (flow_deadline). Row 1 of docs/algorithm.md "Model against program"
// and defect 10 live here: a flow's first packet (its SYN, or its first packet
// mid-connection) opens a provisional interval with the RTT it reads (the
// default for a SYN); the packet completing the RTT sample (md.restart, from
// rtt_fix's use_sample) restarts it, so the handshake is not an interval.
void
Pipeline::DeadlineOp(IgMd& md)
{
    const uint32_t idx = md.bridged.flow_idx & m_idxMask;
    int32_t& v = m_flowDeadline[idx];
    if (!md.bridged.tracked)
        return;
    if (md.bridged.flow_new) // dl_start
    {
        v = int32_t(md.deadline);
        md.bridged.interval_end = 1;
    }
    else if (md.restart) // dl_restart: the packet completing the handshake sample (fix 10)
    {
        v = int32_t(md.deadline);
        md.bridged.interval_end = INTERVAL_RESTART;
    }
    else if (md.data_pkt) // dl_check: wrap-safe signed difference
    {
        if (int32_t(uint32_t(md.ts_s) - uint32_t(v)) >= 0)
        {
            v = int32_t(md.deadline);
            md.bridged.interval_end = 1;
        }
        else
            md.bridged.interval_end = 0;
    }
    else // pure_ack_op
        md.bridged.interval_end = INTERVAL_ACK;
}

// queue_map (queueing.p4): (eg_port, group, slot) -> qid, default 0
void
Pipeline::QueueMap(IgMd& md)
{
    md.bridged.qid = m_queueMap[size_t(md.bridged.group) * kSlots + (md.slot & (kSlots - 1))];
}

// GroupUpdate (update.p4): flow gauges when flow_group was written with another word.
// The reclassification digest is not modelled (no consumer); onGroupChange is a
// model-only trace of every change.
void
Pipeline::GroupUpdate(IgMd& md)
{
    // an update that found its slot closed wrote nothing (group_update)
    if (!md.fg_written || md.fg_new == md.fg_old || (md.is_update && !(md.fg_old & 0x8000)))
        return;
    if (md.fg_new & 0x8000) // a close (FIN/RST) enters nothing; it leaves below
        m_pgFlowEnter[md.is_update ? (md.fg_new & 0x3FFF) : ((STATS_IDX << 5) | GROUP_MOUSE)]++;
    const uint16_t top = md.fg_old >> 14;
    if (top == 2)
        m_pgFlowLeave[md.fg_old & 0x3FFF]++;
    else if (top == 3)
        m_pgFlowLeave[md.is_update ? ((md.fg_new & 0x3FE0) | (md.fg_old & 0x1F))
                                   : ((STATS_IDX << 5) | (md.fg_old & 0x1F))]++;
    const uint8_t og = (md.fg_old & 0x8000) ? uint8_t(md.fg_old & 0x1F) : GROUP_ANT;
    const uint8_t ng = uint8_t(md.fg_new & 0x1F);
    if (onGroupChange && og != ng && (md.fg_new & 0x8000)) // a close is no group (model-only trace)
    {
        const auto& k = m_key[md.bridged.flow_idx & m_idxMask];
        onGroupChange(k[0], uint16_t(k[1]), k[2], uint16_t(k[3]), og, ng);
    }
}

// The egress's mirrored update, recirculated into ingress: group_update_op
// writes the word (no signature check), GroupUpdate counts. The model applies
// it when the classifying packet leaves egress (the recirculation takes
// microseconds); the packet itself was queued by its old group.
void
Pipeline::UpdatePacket(uint32_t flow_idx, uint16_t fg)
{
    IgMd md;
    md.is_update = 1;
    md.bridged.flow_idx = flow_idx;
    md.fg_new = fg;
    uint16_t& v = m_flowGroup[flow_idx & m_idxMask];
    md.fg_written = 1;
    md.fg_old = v;
    if (v & 0x8000) // group_update: a closed slot (0) stays closed
        v = md.fg_new;
    GroupUpdate(md);
}

EnqResult
Pipeline::Enqueue(const Pkt& p)
{
    const uint64_t t = p.t_ns + m_c.clock_offset_ns;
    IgMd md;
    // parser
    md.tcp = p.tcp;
    md.l4_sport = p.sport;
    md.l4_dport = p.dport;
    md.ip_proto = p.tcp ? 6 : 17;
    md.pkt_len32 = p.size;
    if (p.tcp)
    {
        md.syn_only = (p.flags & SYN) && !(p.flags & ACK);
        md.syn_ack = (p.flags & SYN) && (p.flags & ACK);
        md.tcp_ack = (p.flags & ACK) != 0;
        md.fin_rst_syn = (p.flags & (SYN | FIN | RST)) != 0;
        md.fin_rst = !(p.flags & SYN) && (p.flags & (FIN | RST)); // parse_tcp_close
    }
    md.bridged.group = GROUP_ANT; // parser default
    // init_md, init_times, init_now16
    md.bridged.ig_ts = uint32_t(t >> 10);
    md.ts_s = int32_t(md.bridged.ig_ts);
    md.ts_pend = RTT_PENDING | md.bridged.ig_ts;
    md.now16 = uint16_t((((t >> 20) & 0x3FFF) << 2) | 2);
    // IPv4 from an edge port is tracked; from a fabric port it is not (top: md.track)
    md.track = p.from_fabric ? 0 : 1;
    FlowTracker(p, md);
    if (p.from_fabric)
    {
        // fabric port: group and slot as marked by the ingress edge, the shim's PV kept
        md.bridged.group = p.shim_group;
        md.slot = p.shim_slot;
        md.bridged.shim_pv = p.shim_pv;
    }
    else
    {
        // ingress edge: push the shim, PV pv_max until egress marks it
        md.bridged.shim_pv = uint16_t(m_c.pv_max);
        md.bridged.from_edge = 1;
    }
    md.bridged.slot = md.slot;
    QueueMap(md);
    GroupUpdate(md);

    EnqResult r{Verdict::ENQUEUED, md.bridged.tracked ? int(md.bridged.flow_idx & m_idxMask) : -1, md.bridged.group,
                md.bridged.qid, m_nextId++};
    // model-only TM: the queue, its depth in cells, the port's shared buffer
    QueueState& q = m_q[md.bridged.qid];
    CocoaGuard(q, t);
    FlowDiag& diag = DiagFlow(p, md.bridged.flow_idx, md.bridged.group);
    if (m_c.buffer_pkts && m_totalPkts >= m_c.buffer_pkts)
    {
        q.buffer_drops++;
        diag.buffer++;
        r.verdict = Verdict::DROP_BUFFER;
        return r;
    }
    Bridged& b = md.bridged;
    b.id = r.id;
    b.size = p.size;
    b.ect = p.ect;
    b.rand16 = p.rand16;
    b.enq_qdepth = std::min<uint32_t>(q.cells, (1u << 19) - 1);
    b.enq_t_ns = t;
    q.fifo.push_back(b);
    q.cells += (p.size + m_c.cell_bytes - 1) / m_c.cell_bytes;
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
        m_active.push_back(md.bridged.qid);
    }
    return r;
}

// ---------------------------------------------------------------- egress

// egress_op (p4/shared/entries/egress_op.p4): every packet carries a shim here
void
Pipeline::EgressOp(const Bridged& b, EgMd& e) const
{
    e.on = 1;
    if (!b.tracked)
        e.cls_op = CLS_NONE;
    else if (b.flow_new || b.interval_end == INTERVAL_RESTART)
        e.cls_op = CLS_NEW;
    else if (b.interval_end == 1)
        e.cls_op = CLS_END;
    else if (b.interval_end == 0)
        e.cls_op = CLS_PKT;
    else
        e.cls_op = CLS_NONE; // INTERVAL_ACK
}

// Classifier (classifier.p4)
void
Pipeline::Classifier(const Bridged& b, EgMd& e)
{
    const uint32_t i = b.flow_idx & m_idxMask;
    e.log_b = LogBytes(b.int_bytes);
    e.log_r = LogRtt(std::max(b.rtt_us, m_c.interval_min_units)); // log_rtt: the floored interval
    // rtt_band (controller range table on rtt_us[19:0]; default 0)
    e.band = (b.rtt_us & 0xFFFFF) >= m_c.rtt_boundary_units ? 1 : 0;
    // interval_rate(), interval_gaps()
    e.lrate = SatSub16(e.log_b, e.log_r);
    e.fair_fine = uint16_t(e.fair_fine << G::FINE_SHIFT);
    e.m_m1 = uint8_t(e.m_m1 - 1);
    e.sparse_gap = SatSub16(b.int_pkts, e.ant_max_pkts);
    e.bdp_gap = SatSub16(e.fair_fine, e.lrate);

    // eg_sig_op (flow_eg_sig; defects 12 and 13): a new flow stores its EG_SIG (the 8 hash bits
    // above the index); a packet of a flow whose slot holds another EG_SIG stores its own and
    // runs as CLS_NEW from here on: its reset was lost (dropped after ingress claimed the slot),
    // or another ingress pipe's flow of the same index wrote the slot (the model has one pipe)
    uint8_t& es = m_flowEgSig[i];
    const uint8_t eg_sig = uint8_t(b.flow_idx >> m_idxBits);
    if (e.cls_op == CLS_NEW) // eg_sig_claim
        es = eg_sig;
    else if ((e.cls_op == CLS_PKT || e.cls_op == CLS_END) && es != eg_sig) // eg_sig_pkt / eg_sig_end
    {
        es = eg_sig;
        e.cls_op = CLS_NEW;
    }

    // flow_rate: rate_reset (CLS_NEW), rate_end (CLS_END): the raw rate; a fall is <= x0.866 (FALL_FINE)
    int16_t& rate = m_flowRate[i];
    if (e.cls_op == CLS_NEW)
        rate = 0;
    else if (e.cls_op == CLS_END)
    {
        const int16_t lr = int16_t(e.lrate);
        e.fell = int16_t(rate - lr) >= int16_t(G::FALL_FINE) ? 1 : 0;
        rate = lr;
    }
    // flow_rate_s (rate_s_op): the marker's label, the average of the last two intervals' rates
    Pair16& rs = m_flowRateS[i];
    uint16_t lr_sum = 0;
    if (e.cls_op == CLS_NEW) // rate_s_reset
        rs = {RATE_S_NONE, 0};
    else if (e.cls_op == CLS_PKT) // rate_s_read
        lr_sum = rs.hi;
    else if (e.cls_op == CLS_END) // rate_s_end
    {
        if (G::RATE_SMOOTH_INTERVALS == 2 && rs.lo != RATE_S_NONE)
            rs.hi = uint16_t(rs.lo + e.lrate);
        else
            rs.hi = uint16_t((e.lrate & 0x7FFF) << 1);
        rs.lo = e.lrate;
        lr_sum = rs.hi;
    }
    e.lr_pv = uint16_t(lr_sum >> 1); // rate_label
    e.ss_in = e.bdp_gap == 0 ? 0 : SatAdd16(b.int_pkts, 1);

    // ignore_op (flow_ignore), keyed on the group the packet was queued as: a loss-ignoring
    // interval (retransmitted in retx_run intervals in a row, no fall) adds ignore_up (ign_up);
    // a fall or an interval without a retransmission takes one off (ign_down, D15); a shorter
    // run without a fall reads it. On a port with port_cfg's family_forget (the isolated
    // layout) a flow queued model-based does not read the fall (D20): in its own queue BBR's
    // rate falls with its probing and with the other queues' backlog (DWRR), and a fall
    // there took it out of its group for a quarter to a half of a run.
    const bool keepOnFall = e.family_forget != 0 && b.group >= FIRST_MODEL_GROUP && b.group <= LAST_MODEL_GROUP;
    uint8_t& ig = m_flowIgnore[i];
    if (e.cls_op == CLS_NEW) // ign_reset_op
        ig = 0;
    else if (e.cls_op == CLS_END && b.group == GROUP_MOUSE) // ign_reset_op
    {
        ig = 0;
        e.ign = 0;
    }
    else if (e.cls_op == CLS_END && b.group == GROUP_ANT) // ign_hold_op
        e.ign = 0;
    else if (e.cls_op == CLS_END && ((e.fell && !keepOnFall) || b.int_retx == 0)) // ign_down
    {
        if (ig != 0)
            ig = uint8_t(ig - 1);
        e.ign = ig;
    }
    else if (e.cls_op == CLS_END && b.int_retx >= G::RETX_RUN) // ign_up (fell is 0 here, or not read)
    {
        ig = SatAdd8(ig, uint8_t(P::CLASSIFIER_IGNORE_UP));
        e.ign = ig;
    }
    else if (e.cls_op == CLS_END) // ign_read
        e.ign = ig;
    // ss_op (flow_ss)
    Pair16& ss = m_flowSs[i];
    if (e.cls_op == CLS_NEW)
        ss = {1, SS_ACTIVE};
    else if (e.cls_op == CLS_END && b.group == GROUP_ANT) // ss_hold_op
        e.ss_state = SS_ACTIVE;
    else if (e.cls_op == CLS_END) // ss_end: output 0 (active) where no branch writes it
    {
        uint16_t rv = 0;
        if (ss.hi == SS_ACTIVE)
        {
            if (e.ss_in < ss.lo)
            {
                ss.hi = SS_ENDED_NOW;
                rv = ss.hi;
            }
        }
        else
        {
            ss.hi = SS_DONE;
            rv = ss.hi;
        }
        ss.lo = e.ss_in;
        e.ss_state = rv;
    }
    e.t_mm = SatSub8(e.ign, e.m_m1);
    // family_op (flow_family): delay (0, 1) until the rate has fallen in two intervals with a
    // retransmission (it backed off after a loss twice), then loss (2 + 4 n); sticky while
    // long-lived (D11, D16), unless port_cfg's family_forget is set: then n counts the interval
    // ends in a row without a retransmission and the M-th takes one back-off off (1, D19).
    // group_of reads bit 1.
    const uint32_t forgetAt = 2 + 4 * (m_c.family_forget_intervals - 1); // FAMILY_FORGET_AT
    uint8_t& fam = m_flowFamily[i];
    if (e.cls_op == CLS_NEW) // family_reset_op
        fam = FLOW_FAMILY_DELAY;
    else if (e.cls_op == CLS_END && b.group == GROUP_MOUSE) // family_clear_op
    {
        fam = FLOW_FAMILY_DELAY;
        e.family = FLOW_FAMILY_DELAY;
    }
    else if (e.cls_op == CLS_END && b.group == GROUP_ANT) // family_hold_op
        e.family = FLOW_FAMILY_DELAY;
    else if (e.cls_op == CLS_END && e.fell && b.int_retx != 0) // family_loss_op: one more back-off
    {
        fam = fam < FLOW_FAMILY_LOSS ? uint8_t(fam + 1) : FLOW_FAMILY_LOSS;
        e.family = fam;
    }
    else if (e.cls_op == CLS_END && b.int_retx == 0 && e.family_forget != 0) // family_clean_op
    {
        if (fam >= forgetAt)
            fam = 1;
        else if (fam >= FLOW_FAMILY_LOSS)
            fam = uint8_t(fam + 4);
        e.family = fam;
    }
    else if (e.cls_op == CLS_END) // family_dirty_op: a loss-based flow's clean run restarts
    {
        if (fam >= FLOW_FAMILY_LOSS)
            fam = FLOW_FAMILY_LOSS;
        e.family = fam;
    }
    if (e.cls_op == CLS_END)
        e.new_group = GroupOfKeys(e.sparse_gap, e.ss_state, e.t_mm, e.family, e.band);
    // P4air: one deliberate drop when slow start ends at the fair BDP
    if (e.cls_op == CLS_END && e.ss_state == SS_ENDED_NOW && e.bdp_gap == 0 && e.ss_drop_en != 0)
        e.ss_drop = 1;
    // update_limiter: at most one update per 2^UPDATE_PERIOD_SHIFT ns per pipe
    if (e.cls_op == CLS_END && e.new_group != b.group)
    {
        if (m_updateLimiter != e.update_tick)
        {
            m_updateLimiter = e.update_tick;
            e.upd_ok = 1;
        }
    }
    if (e.upd_ok)
        UpdatePacket(b.flow_idx, uint16_t(0x8000 | (STATS_IDX << 5) | (e.new_group & 0x1F)));
}

// Marker (marker.p4): PV = tvf[profile, group, pos[9:2]] for packets from an edge port
void
Pipeline::Marker(const Bridged& b, EgMd& e)
{
    const uint16_t rnd = b.rand16 ? b.rand16 : NextRand();
    e.nlog_u = LogU(rnd);
    e.pos = SatSub16(e.lr_pv, e.nlog_u);
    e.pv = b.shim_pv;
    if (e.on && b.from_edge)
    {
        const uint32_t bin = (e.pos >> G::FINE_SHIFT) & 0xFF;
        e.pv = bin < m_c.tvf_steps ? m_tvf[b.group][bin] : uint16_t(m_c.pv_max);
    }
}

// Aqm (aqm.p4): per-queue CTV and the Cocoa limit; every PV < CTV candidate is dropped or marked
void
Pipeline::Aqm(const Bridged& b, EgMd& e, QueueState& q)
{
    // aqm_cfg: target_delay, limit_cells, ecn, ctv_lo, ctv_hi (controller)
    const uint32_t target = q.target_units ? q.target_units : m_c.target_delay_units;
    e.limit_cells = q.limit * m_c.cells_per_pkt;
    const uint8_t ecn_en = m_c.ecn ? 1 : 0;
    e.delay_us = e.eg_ts - b.ig_ts;
    e.delay_over = SatSub32(e.delay_us, target);
    // queue_delay_scaled, delay_excess: a PV verdict needs sojourn << pv_gate_shift > target
    e.gate_over = SatSub32(e.delay_us << m_c.pv_gate_shift, target);
    e.depth_over = SatSub32(e.depth, e.limit_cells);
    if (e.on)
    {
        q.q_max_delay = std::max(q.q_max_delay, e.delay_us);
        q.q_min_depth = std::min(q.q_min_depth, e.depth);
        // ctv_tick: the first packet of the queue in a new period steps the CTV
        if (q.q_ctv_tick != e.ctv_now)
        {
            q.q_ctv_tick = e.ctv_now;
            e.ctv_tick = 1;
        }
    }
    uint16_t edge, cross;
    if (e.delay_over != 0) // ctv_edge_for_up
    {
        edge = q.ctv_hi;
        cross = SatSub16(q.ctv_hi, uint16_t(m_c.ctv_step_up));
    }
    else // ctv_edge_for_down
    {
        edge = q.ctv_lo;
        cross = SatAdd16(q.ctv_lo, uint16_t(m_c.ctv_step_down));
    }
    // ctv_op
    if (e.on && e.ctv_tick && e.delay_over == 0) // ctv_down
        q.q_ctv = q.q_ctv <= cross ? edge : uint16_t(q.q_ctv - m_c.ctv_step_down);
    else if (e.on && e.ctv_tick) // ctv_up
        q.q_ctv = q.q_ctv >= cross ? edge : uint16_t(q.q_ctv + m_c.ctv_step_up);
    e.ctv = q.q_ctv;
    e.pv_below = m_c.pv_aqm ? SatSub16(e.ctv, e.pv) : 0; // model-only switch pv_aqm
    const bool candidate = e.pv_below != 0 && (!b.ect || !ecn_en); // PV drop, not CE-markable (IPv4 always)
    // aqm_verdict (p4/shared/entries/aqm_verdict.p4)
    if (e.on)
    {
        if (e.depth_over != 0)
        {
            e.drop = 1; // limit_drop
            q.q_limit_drops++;
        }
        else if (e.pv_below == 0 || e.gate_over == 0)
        {
        } // pass: PV >= CTV, or no standing queue
        else if (b.retx && b.group < FIRST_MODEL_GROUP)
        {
        } // pass: a retransmission, unless its flow is queued as model-based (the top groups)
        else if (candidate)
            e.pv_drop = 1;
        else
            e.mark = 1;
    }
}

// Telemetry (telemetry.p4): pg_pkts (packets and bytes), pg_drops, pg_marks per group
void
Pipeline::Telemetry(const Bridged& b, const EgMd& e)
{
    if (!e.on)
        return;
    GroupStats& g = m_g[b.group];
    g.pkts++;
    g.bytes += b.size;
    if (e.drop || e.pv_drop)
        g.drops++;
    else if (e.mark)
        g.marks++;
}

DeqResult
Pipeline::Dequeue(uint64_t now_ns)
{
    const uint64_t now = now_ns + m_c.clock_offset_ns;
    DeqResult r;
    while (!m_active.empty())
    {
        // model-only TM: DRR over the queues, quanta x the TM's weights (queues.dwrr_weights)
        const uint8_t qi = m_active.front();
        QueueState& q = m_q[qi];
        if (q.fifo.empty())
        {
            m_active.pop_front();
            q.active = false;
            continue;
        }
        const Bridged b = q.fifo.front();
        if (q.deficit < int32_t(b.size))
        {
            q.deficit += int32_t(m_c.quantum_bytes * m_c.dwrr_weights[qi]);
            m_active.pop_front();
            m_active.push_back(qi);
            continue;
        }
        q.fifo.pop_front();
        q.deficit -= int32_t(b.size);
        q.cells -= (b.size + m_c.cell_bytes - 1) / m_c.cell_bytes;
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

        // EgressPipe
        EgMd e;
        e.eg_ts = uint32_t(now >> 10);
        e.ctv_now = uint16_t(now >> m_c.ctv_period_shift);
        e.update_tick = uint16_t(now >> G::UPDATE_PERIOD_SHIFT);
        e.depth = b.enq_qdepth;
        EgressOp(b, e);
        // egress port_cfg (controller)
        e.fair_fine = m_fairRateBin;
        e.ant_max_pkts = uint16_t(m_c.ant_max_pkts);
        e.m_m1 = uint8_t(m_c.m_m);
        e.ss_drop_en = m_c.ss_proactive_drop ? 1 : 0;
        e.family_forget = m_familyForget;
        Classifier(b, e);
        Marker(b, e);
        if (e.ss_drop)
            e.drop = 1;
        Aqm(b, e, q);
        Telemetry(b, e);

        r.valid = true;
        r.id = b.id;
        r.queue = qi;
        r.group = b.group;
        r.pv = e.pv;
        r.ctv = e.ctv;
        r.slot = b.slot;
        r.sojourn_ns = now - b.enq_t_ns;
        q.max_delay_ns = std::max(q.max_delay_ns, r.sojourn_ns);
        // egress_out (p4/shared/entries/egress_out.p4)
        if (e.on && e.drop)
            r.action = e.ss_drop ? Action::DROP_PROACTIVE : Action::DROP_LIMIT;
        else if (e.on && e.pv_drop)
            r.action = Action::DROP_PV;
        else if (e.on && e.mark)
            r.action = Action::MARK;
        if (r.action == Action::DROP_PV)
            q.drops++;
        else if (r.action == Action::MARK)
            q.marks++;
        if (r.action == Action::DROP_LIMIT)
            CocoaOnFull(q, now);
        if (r.action != Action::FORWARD && r.action != Action::MARK)
            q.deficit += int32_t(b.size); // a dropped packet uses no link time
        CocoaGuard(q, now);
        DiagDequeue(b, e, q, qi, r.action);
        return r;
    }
    return r;
}

// ---------------------------------------------------------------- Cocoa (controller-side; model-only rules)

void
Pipeline::CocoaOnFull(QueueState& q, uint64_t t)
{
    // a limit drop ends the loss-free interval
    uint64_t li = t - q.li_start;
    if (li > q.longest_li)
    {
        q.longest_li = li;
        q.longest_li_min = q.li_min;
    }
    q.li_start = t;
    q.li_min = uint32_t(q.fifo.size());
    // grow if the queue went idle since the last limit event: the buffer was too
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
    q.limit = std::max<uint32_t>(std::max(m_c.cocoa_min, q.limit_floor), q.limit > M ? q.limit - M : 0);
    q.gi_len = std::min<uint64_t>(uint64_t(double(L) * m_c.cocoa_gi_mult),
                                  uint64_t(m_c.cocoa_max_gi_ms) * 1000000ULL);
    if (q.gi_len == 0)
        q.gi_len = uint64_t(m_c.cocoa_max_gi_ms) * 1000000ULL;
    q.gi_start = t;
    q.longest_li = 0;
    q.li_start = t;
    q.li_min = uint32_t(q.fifo.size());
}

// ---------------------------------------------------------------- the emulated controller (ONOS app)

void
Pipeline::SetFairRate(uint64_t bps)
{
    SetPortFairRate(bps);
    CentreCurves(bps);
    m_haveFair = bps > 0; // a test's fair rate stands for the controller's
    m_diagFairBps = bps;
}

int64_t
Pipeline::RateBin(double kbps) const
{
    // the TVF table's rate bin of kbps (Tvf.binOf), clamped to the table
    return std::clamp<int64_t>(
        int64_t(std::floor(m_c.tvf_steps_per_decade * std::log10(std::max(kbps, 1e-9) / m_c.tvf_min_kbps) + 1e-9)), 0,
        m_c.tvf_steps - 1);
}

void
Pipeline::SetPortFairRate(uint64_t bps)
{
    m_fairBps = bps;
    // fair_rate_bin = bin(fair >> bdp_shift) (PolicyCompiler.bin)
    m_fairRateBin = uint8_t(RateBin(double(bps) / 1e3 / double(1u << m_c.bdp_shift)));
}

void
Pipeline::CentreCurves(uint64_t bps)
{
    // The CTV ranges are read at the bin of `bps` (PolicyCompiler.centreBin). The TVFs themselves
    // are the fabric's one scale (Tvf.curve, D22): pv_max/2 at tvf_scale_bin, falling
    // (pv_max + 1)/(2 x steps_per_decade x half_span_decades) per bin, clamped to [0, pv_max]. Each
    // group's curve is shifted right by its m_shift bins (weight shift, model_shift_bins for the
    // model-based groups in every intent, D14, and the share correction, D13).
    m_centreBin = uint32_t(RateBin(double(bps) / 1e3));
    const int64_t c = m_c.tvf_scale_bin;
    // (pv_max + 1) / span PV a bin: 512 with the defaults, so bin C - 64 is pv_max itself
    const int64_t span = 2 * int64_t(m_c.tvf_steps_per_decade) * int64_t(m_c.tvf_half_span_decades), pv = m_c.pv_max;
    for (uint32_t g = 0; g < m_tvf.size(); ++g)
    {
        const double sh = g < m_shift.size() ? m_shift[g] : 0.0;
        auto& t = m_tvf[g];
        for (uint32_t i = 0; i < m_c.tvf_steps; ++i)
        {
            int64_t drop;
            if (sh == 0.0)
                drop = (int64_t(i) - c) * (pv + 1) / span; // integer, truncated toward 0
            else
            {
                // Tvf.curve's real arithmetic for a fractional shift, truncated toward 0 with
                // its nudge (float noise in log10(w) must not move an exact multiple across)
                const double v = (double(i) - double(c) - sh) * (double(pv + 1) / double(span));
                drop = int64_t(v + std::copysign(1e-6, v));
            }
            t[i] = uint16_t(std::clamp<int64_t>(pv / 2 - drop, 0, pv));
        }
    }
}

std::vector<uint32_t>
Pipeline::ActiveFlows() const
{
    std::vector<uint32_t> n(m_nGroups, 0);
    for (uint32_t g = 0; g < m_nGroups; ++g)
        n[g] = uint32_t(m_g[g].active);
    return n;
}

std::vector<double>
Pipeline::GroupWeights() const
{
    // PolicyCompiler.plan: 0 for groups without a family (ants, mice), else 1 (per-flow) or
    // the intent's weight of the group's family (weighted-groups)
    std::vector<double> w(m_nGroups, 0.0);
    for (uint32_t g = 2; g < m_nGroups; ++g)
        w[g] = m_c.family_weights.empty() ? 1.0 : m_c.family_weights[(g - 2) / m_c.k];
    return w;
}

double
Pipeline::FairRate(double link, const std::vector<uint32_t>& n, uint32_t first, const std::vector<double>& weight)
{
    // PolicyCompiler.fairKbps(speed, flows, weight): a flow of group g counts weight[g] times.
    // What a group forwarded is not read: a flow starved by another read as demand-limited and
    // raised the fair rate for the flow starving it (defect 17); a PV drop needs a standing
    // queue, so the link stays busy without that step (D12).
    double flows = 0;
    for (uint32_t g = first; g < n.size(); ++g)
        flows += n[g] * (g < weight.size() ? weight[g] : 1.0);
    return flows > 0 && link > 0 ? link / flows : 0.0;
}

std::vector<uint32_t>
Pipeline::Allocate(uint32_t Q, uint32_t numGroups, uint32_t antQ, uint32_t miceQ, QueueLayout layout)
{
    // PolicyCompiler.allocate
    const uint32_t ant = GROUP_ANT, mouse = GROUP_MOUSE;
    const bool shared = layout == QueueLayout::Shared;
    std::vector<uint32_t> q(numGroups, 1);
    if (!shared && Q < numGroups)
        return q;
    q[ant] = antQ;
    q[mouse] = miceQ;
    // shared: the long-lived groups' ones are the same queue, so they count once
    int64_t rest = int64_t(Q) - (shared ? int64_t(antQ) + miceQ + 1 : 0);
    if (!shared)
        for (uint32_t x : q)
            rest -= x;
    while (rest < 0 && (q[mouse] > 1 || q[ant] > 1))
    {
        if (q[mouse] >= q[ant])
            q[mouse]--;
        else
            q[ant]--;
        rest++;
    }
    return q; // the queues left stay unused
}

std::vector<uint32_t>
Pipeline::IsolatedFirst(const std::vector<uint32_t>& queues, const std::vector<uint32_t>& flows,
                        const std::vector<double>& weight, const std::vector<uint32_t>& dwrr)
{
    // PolicyCompiler.assign, term for term (D18)
    const uint32_t G = uint32_t(queues.size());
    std::vector<uint32_t> first = FirstQueues(queues, QueueLayout::Isolated);
    const uint32_t Q = uint32_t(dwrr.size());
    const uint32_t free0 = queues[GROUP_ANT] + queues[GROUP_MOUSE];
    if (free0 + (G - 2) > Q)
        return first; // fewer queues than groups: ids wrap (QueueSplit.queueOf)
    const auto w = [&](uint32_t g) { return g < weight.size() && weight[g] > 0 ? weight[g] : 1.0; };
    std::vector<double> d(G, 0.0), lnW(Q, 0.0);
    for (uint32_t q = 0; q < Q; ++q)
        lnW[q] = std::log(double(dwrr[q]));
    std::vector<uint32_t> busy, idle;
    for (uint32_t g = 2; g < G; ++g)
    {
        d[g] = (g < flows.size() ? double(flows[g]) : 0.0) * w(g);
        (d[g] > 0 ? busy : idle).push_back(g);
    }
    if (busy.empty())
    {
        // no long-lived flow known: every group as if it held one flow (x its weight)
        busy.swap(idle);
        for (uint32_t g : busy)
            d[g] = w(g);
    }
    std::stable_sort(busy.begin(), busy.end(), [&](uint32_t a, uint32_t b) { return d[a] > d[b]; });
    // the free queue nearest ln(target), lowest id on ties
    const auto nearest = [&](const std::vector<bool>& used, double lnTarget, double& err) {
        int best = -1;
        err = 0;
        for (uint32_t q = free0; q < Q; ++q)
            if (!used[q] && (best < 0 || std::fabs(lnW[q] - lnTarget) < err - 1e-12))
                best = int(q), err = std::fabs(lnW[q] - lnTarget);
        return best;
    };
    // busy groups by demand (ties: lower id), each to its nearest free queue at scale lam;
    // returns the largest error
    const auto greedy = [&](double lnLam, std::vector<int>& at) {
        std::vector<bool> used(Q, false);
        at.assign(G, -1);
        double worst = 0, e = 0;
        for (uint32_t g : busy)
        {
            at[g] = nearest(used, lnLam + std::log(d[g]), e);
            used[size_t(at[g])] = true;
            worst = std::max(worst, e);
        }
        for (uint32_t g : idle) // groups without flows: as if they held one, after the busy ones
        {
            at[g] = nearest(used, lnLam + std::log(w(g)), e);
            used[size_t(at[g])] = true;
        }
        return worst;
    };
    // scales that put some busy group exactly on some queue's weight; the first best one wins
    std::vector<int> at, best;
    double bestErr = 0;
    for (uint32_t g : busy)
        for (uint32_t q = free0; q < Q; ++q)
        {
            if (q > free0 && dwrr[q] == dwrr[q - 1])
                continue; // the scale just tried: the same placement
            const double e = greedy(lnW[q] - std::log(d[g]), at);
            if (best.empty() || e < bestErr - 1e-12)
                bestErr = e, best = at;
        }
    for (uint32_t g = 2; g < G; ++g)
        first[g] = uint32_t(best[g]);
    return first;
}

std::vector<uint32_t>
Pipeline::FirstQueues(const std::vector<uint32_t>& queues, QueueLayout layout)
{
    std::vector<uint32_t> first(queues.size(), 0);
    uint32_t base = 0;
    int64_t common = -1;
    for (uint32_t g = 0; g < queues.size(); ++g)
        if (layout == QueueLayout::Shared && g != GROUP_ANT && g != GROUP_MOUSE)
        {
            if (common < 0)
                common = base++;
            first[g] = uint32_t(common);
        }
        else
        {
            first[g] = base;
            base += queues[g];
        }
    return first;
}

void
Pipeline::ControllerTick(uint64_t now)
{
    // 1. active flows per group: pg_flow_enter - pg_flow_leave (stale until a slot is reused)
    std::vector<uint32_t> n(m_nGroups, 0);
    for (uint32_t g = 0; g < m_nGroups; ++g)
    {
        const uint64_t in = m_pgFlowEnter[(STATS_IDX << 5) | g], out = m_pgFlowLeave[(STATS_IDX << 5) | g];
        n[g] = in > out ? uint32_t(in - out) : 0;
        m_g[g].active = n[g];
    }
    // 2. the share correction once per app round (recompute_period_ms; the model ticks faster),
    // on what each group forwarded since the last round: pg_pkts bytes less the dropped share
    // (GroupStats.forwardedBitsSince)
    if (!m_corrPrimed || now >= m_corrFromNs + m_c.recompute_period_ns)
    {
        if (m_corrPrimed)
        {
            std::vector<double> fwd(m_nGroups, 0.0);
            std::vector<uint64_t> sig(m_nGroups, 0);
            for (uint32_t g = 0; g < m_nGroups; ++g)
            {
                const GroupStats &a = m_corrFrom[g], &b = m_g[g];
                const uint64_t pkts = b.pkts - a.pkts, bytes = b.bytes - a.bytes, drops = b.drops - a.drops;
                if (pkts > 0 && bytes > 0)
                    fwd[g] = 8.0 * double(bytes) * double(pkts - std::min(pkts, drops)) / double(pkts);
                sig[g] = drops + (b.marks - a.marks);
            }
            CorrectShares(n, fwd, sig, double(now - m_corrFromNs) * 1e-9);
            m_diag.corr_sum.resize(m_nGroups, 0.0);
            for (uint32_t g = 0; g < m_nGroups; ++g)
                m_diag.corr_sum[g] += AppliedCorrection(g);
            m_diag.corr_rounds++;
        }
        m_corrFrom = m_g;
        m_corrFromNs = now;
        m_corrPrimed = true;
    }
    ApplyPolicy(n);
}

double
Pipeline::AppliedCorrection(uint32_t g) const
{
    const double qb = m_c.corr_quantum_bins;
    return qb > 0 ? std::floor(m_corr[g] / qb + 0.5) * qb : m_corr[g];
}

void
Pipeline::CorrectShares(const std::vector<uint32_t>& n, const std::vector<double>& fwd,
                        const std::vector<uint64_t>& sig, double seconds)
{
    // ShareCorrection.step, term for term (docs/algorithm.md D13)
    const std::vector<uint32_t> prev = m_corrPrevFlows;
    m_corrPrevFlows = n;
    const std::vector<double> w = GroupWeights(); // 1 per long-lived group under per-flow
    const uint32_t first = 2;                     // long-lived groups: 2.. (ants 0, mice 1)
    double total = 0;
    for (uint32_t g = 0; g < m_nGroups; ++g)
        total += fwd[g];
    for (uint32_t g = first; g < m_nGroups; ++g)
        if (n[g] == 0)
            m_corr[g] = 0.0; // a group without flows has nothing to correct
    // Only groups the AQM signalled this round (a drop or a mark) take part; the others' decay
    // by correction_release. A group below its share that was not signalled is held back by its
    // own demand or growth, not by the AQM: a higher curve would not help it and would only
    // lower the others' (an application-limited group would take the whole positive
    // correction); and a correction it earned while signalled must not outlive the signal.
    // A group also needs flows at the previous round: one that has just filled (flows out of
    // slow start, or reclassified) has no steady rate yet (BBR's start-up read as a starved
    // group and took +2 bins in its first round).
    const auto part = [&](uint32_t g) { return n[g] > 0 && prev[g] > 0 && sig[g] > 0; };
    if (m_c.corr_gain <= 0 || seconds <= 0)
        return;
    const double util = total / (double(m_c.link_rate_bps) * seconds);
    if (util < m_c.corr_min_util)
    {
        // the link has room: a group held below its share by the correction could use it, so
        // the corrections are released (work conservation before fairness)
        for (uint32_t g = first; g < m_nGroups; ++g)
            m_corr[g] *= m_c.corr_release;
        return;
    }
    double sf = 0, sw = 0;
    for (uint32_t g = first; g < m_nGroups; ++g)
        if (part(g))
            sf += fwd[g], sw += double(n[g]) * w[g];
    if (sf <= 0 || sw <= 0)
        return;
    const double ref = sf / sw; // bits per unit of weight
    for (uint32_t g = first; g < m_nGroups; ++g)
    {
        if (!part(g))
        {
            m_corr[g] *= m_c.corr_release;
            continue;
        }
        const double x = std::max(fwd[g] / (double(n[g]) * w[g]), ref / 1000.0);
        const double err = double(m_c.tvf_steps_per_decade) * std::log10(x / ref); // bins above its share
        const double step = std::clamp(m_c.corr_gain * err, -m_c.corr_step_bins, m_c.corr_step_bins);
        m_corr[g] = std::clamp(m_corr[g] - step, -m_c.corr_max_bins, m_c.corr_max_bins);
    }
    // the participants re-centred so that the flow-weighted sum over every group with flows is
    // 0: the correction moves share between groups, it does not raise or lower every curve
    // against the queue's CTV range
    double sumC = 0, sumN = 0;
    for (uint32_t g = first; g < m_nGroups; ++g)
    {
        if (n[g] > 0)
            sumC += double(n[g]) * m_corr[g];
        if (part(g))
            sumN += double(n[g]);
    }
    const double mean = sumC / sumN;
    for (uint32_t g = first; g < m_nGroups; ++g)
        if (part(g))
            m_corr[g] = std::clamp(m_corr[g] - mean, -m_c.corr_max_bins, m_c.corr_max_bins);
}

void
Pipeline::ApplyPolicy(const std::vector<uint32_t>& n)
{
    // PolicyCompiler.compileDevice for the model's one port under its governing intent: per-flow
    // (family_weights empty) or weighted-groups (a weight per family).
    const std::vector<double> w = GroupWeights();
    const bool weighted = !m_c.family_weights.empty();
    const bool shared = m_c.queue_layout == QueueLayout::Shared;
    // 1. per group the curve's shift, steps_per_decade x log10(w) bins, the model-based groups'
    // model_shift_bins (hybrid kind model and the hybrid sub-groups above it; PolicyCompiler.family,
    // D14) plus the share correction (D13) as applied
    for (uint32_t g = 0; g < m_nGroups; ++g)
        m_shift[g] = (weighted && w[g] > 0 ? double(m_c.tvf_steps_per_decade) * std::log10(w[g]) : 0.0) +
                     (g >= FIRST_MODEL_GROUP && g <= LAST_MODEL_GROUP ? double(m_c.model_shift_bins) : 0.0) +
                     AppliedCorrection(g);
    // 2. fair rate of a long-lived flow (PolicyCompiler.fairKbps): port_cfg's, weights ignored
    const double fair = FairRate(double(m_c.link_rate_bps), n, 2);
    const bool noFair = fair <= 0;
    // Without a long-lived flow the link's rate (PolicyCompiler.portFairBin): its bin is also
    // port_cfg's fair_rate_bin, so the slow-start BDP test acts from the first flow on (D7).
    SetPortFairRate(noFair ? m_c.link_rate_bps : uint64_t(fair));
    m_haveFair = !noFair;
    m_diagFairBps = m_fairBps;
    // The TVFs' centre (PolicyCompiler.centreBin): the fair rate's bin; weighted-groups in the
    // shared layout: one queue holds every weight, so only the PV law can weigh them and the
    // curves centre on the rate of a weight-1 flow. Without a long-lived flow the link's bin.
    // unit: a weight-1 flow's weighted share, speed / sum(flows x weight) (also D20's and D19's)
    const double unit = FairRate(double(m_c.link_rate_bps), n, 2, w);
    const double centre = weighted && shared ? unit : fair;
    CentreCurves(centre > 0 ? uint64_t(centre) : m_c.link_rate_bps);
    // 3. queues per group (PolicyCompiler.allocate) and queue_map (QueueSplit.queueOf), in the
    // configured layout: shared puts every long-lived group in one queue after ants' and mice';
    // isolated gives each its own, the one whose DWRR weight follows flows x weight (D18)
    const uint32_t Q = m_c.num_queues;
    const auto share = [&](double s) { return std::max<uint32_t>(1, uint32_t(std::ceil(s * Q - 1e-9))); };
    const std::vector<uint32_t> nq = Allocate(Q, m_nGroups, share(P::POLICY_DEFAULT_MIN_ANT_SHARE),
                                              share(P::POLICY_DEFAULT_MIN_MICE_SHARE), m_c.queue_layout);
    const std::vector<uint32_t> first =
        shared ? FirstQueues(nq, m_c.queue_layout) : IsolatedFirst(nq, n, w, m_c.dwrr_weights);
    for (uint32_t g = 0; g < m_nGroups; ++g)
    {
        if (g >= 2 && g < n.size() && n[g] > 0 && m_queueMap[g * kSlots] != uint8_t(first[g] % Q))
            m_diag.queue_moves++, m_diag.queue_moved_flows += n[g];
        for (uint32_t s = 0; s < kSlots; ++s)
            m_queueMap[g * kSlots + s] = uint8_t((first[g] + s % nq[g]) % Q);
    }
    // 4. CTV range per queue (PolicyCompiler.ctvRange): the owner group's TVF at the centre bin
    // (not fair_rate_bin, which is of fair >> bdp_shift) + its rounded shift + floor /
    // ceiling bins, clamped to the table; with or without a fair rate (the app never writes the
    // whole PV range). The shift keeps a heavy group's range off its curve's saturated top. The
    // shared layout's common queue: the ants' (weight-1, unshifted) curve.
    // A port that receives from fabric ports reads its strict edge (ctv_hi) no higher than the bin
    // of speed / (its flows + those the other devices count, SetFabricFlows; weighted shared: a
    // weight-1 flow's share of that), D22: flows are counted where they are tracked. Without
    // them (one switch, a leaf's uplink: no SetFabricFlows) the port's own centre.
    int32_t fabricDown = 0;
    if (!m_fabricFlows.empty())
    {
        std::vector<uint32_t> nf(n);
        for (uint32_t g = 0; g < m_nGroups && g < m_fabricFlows.size(); ++g)
            nf[g] += m_fabricFlows[g];
        const double ff = weighted && shared ? FairRate(double(m_c.link_rate_bps), nf, 2, w)
                                             : FairRate(double(m_c.link_rate_bps), nf, 2);
        if (ff > 0)
            fabricDown = std::max<int32_t>(0, int32_t(int64_t(m_centreBin) - RateBin(ff / 1e3)));
        // a port that counts no flow of its own has the fabric's share as its R*'s reference
        if (noFair && ff > 0)
            m_haveFair = true, m_diagFairBps = uint64_t(ff);
    }
    const auto at = [&](uint8_t g, int32_t k) {
        const int64_t b = std::clamp<int64_t>(int64_t(m_centreBin) + int64_t(std::floor(m_shift[g] + 0.5)) /* Math.round */ + k, 0,
                                              int64_t(m_c.tvf_steps) - 1);
        return m_tvf[g][size_t(b)];
    };
    const auto strict = [&](uint8_t g, int32_t k) { return at(g, m_c.ctv_ceiling_bins + k - fabricDown); };
    // Not shared (D20): a model-based group's range is read at the bin of a weight-1 flow's
    // weighted share (the curve's shift adds the weight), not at the unweighted fair rate's:
    // BBR does not answer the drop rate, so only a range at its share holds its queue; every
    // other group keeps the unweighted bin, whose leniency D19's forgetting needs.
    const int32_t modelOff =
        !shared && unit > 0 ? int32_t(RateBin(unit / 1e3) - int64_t(m_centreBin)) : 0;
    for (uint32_t qi = 0; qi < Q; ++qi)
    {
        m_q[qi].ctv_lo = at(GROUP_MOUSE, m_c.ctv_floor_bins);
        m_q[qi].ctv_hi = strict(GROUP_MOUSE, 0);
    }
    for (uint32_t g = 0; g < m_nGroups; ++g)
    {
        const int32_t off = g >= FIRST_MODEL_GROUP && g <= LAST_MODEL_GROUP ? modelOff : 0;
        for (uint32_t j = 0; j < std::min(kSlots, nq[g]); ++j)
        {
            QueueState& q = m_q[(first[g] + j) % Q];
            q.ctv_lo = at(uint8_t(g), m_c.ctv_floor_bins + off);
            q.ctv_hi = strict(uint8_t(g), off);
        }
    }
    if (shared)
    {
        // The common queue: the ants' (weight-1) curve, so a flow of weight w is signalled above
        // w times the range's rate (CSFQ's weighted law)
        QueueState& q = m_q[first[2] % Q]; // long-lived groups are 2.. (Allocate)
        q.ctv_lo = at(GROUP_ANT, m_c.ctv_floor_bins);
        q.ctv_hi = strict(GROUP_ANT, 0);
    }
    // 5. D19, isolated layout only (PolicyCompiler.delayTargetUs, PolicyDelta's port_cfg): the
    // family forgets (port_cfg family_forget), and a delay group's queue is held to
    // delay_target_pkts packets of its flows' weighted fair rate before the AQM acts: a
    // Vegas-only queue stands at alpha..beta segments a flow, which the port's target would drop
    // into Reno's behaviour. A queue that also holds another group keeps the port's target.
    m_familyForget = shared ? 0 : 1;
    std::vector<int> onlyDelay(Q, -1); // -1: no group; 1: delay groups only; 0: another group too
    for (uint32_t g = 0; g < m_nGroups; ++g)
        for (uint32_t j = 0; j < std::min(kSlots, nq[g]); ++j)
        {
            int& o = onlyDelay[(first[g] + j) % Q];
            o = IsDelayGroup(g) && o != 0 ? 1 : 0;
        }
    for (uint32_t qi = 0; qi < Q; ++qi)
    {
        QueueState& q = m_q[qi];
        q.target_units = 0;
        q.limit_floor = 0;
        if (shared || onlyDelay[qi] != 1 || !(unit > 0))
            continue;
        double wq = 0; // the queue's delay groups: one weight per family, so one value
        for (uint32_t g = 0; g < m_nGroups; ++g)
            if ((first[g] % Q) == qi)
                wq = w[g] > 0 ? w[g] : 1.0;
        const double us = double(m_c.delay_target_pkts) * 1500.0 * 8.0 / (unit * wq) * 1e6;
        q.target_units = uint32_t(std::max<double>(m_c.target_delay_units, std::min(us, 100000.0)));
        // D21 (PolicyCompiler.delayFloors, Cocoa.limits): Cocoa takes a standing queue that never
        // drains for excess buffer and shrinks the limit by it; here that queue is the delay
        // flows' alpha..beta segments, which the target above keeps, so the limit stops at
        // delay_target_pkts a flow of the queue (a group's flows spread over its slots' queues).
        uint32_t slots = 0;
        for (uint32_t g = 0; g < m_nGroups && g < n.size(); ++g)
            for (uint32_t s = 0; s < kSlots; ++s)
                if (m_queueMap[g * kSlots + s] == qi)
                    slots += n[g];
        q.limit_floor = std::min(m_c.cocoa_max, uint32_t(std::ceil(double(m_c.delay_target_pkts) * double(slots) / double(kSlots))));
        q.limit = std::max(q.limit, q.limit_floor);
    }
}

// ---------------------------------------------------------------- read-out (model-only)

bool
Pipeline::ReadFlow(uint32_t src, uint16_t sport, uint32_t dst, uint16_t dport, FlowRegs& out) const
{
    const uint32_t ip_lo = std::min(src, dst), ip_hi = std::max(src, dst);
    const uint16_t port_lo = std::min(sport, dport), port_hi = std::max(sport, dport);
    const uint32_t idx = FlowHash(src, sport, dst, dport) & m_idxMask;
    uint8_t buf[12], *o = buf;
    Put(o, port_hi, 2), Put(o, ip_hi, 4), Put(o, port_lo, 2), Put(o, ip_lo, 4);
    const uint16_t sig = uint16_t((Crc16(buf, 12) & 0x7FFF) + 0x8000); // as sig_check stores it
    if (m_flowSig[idx].sig != sig || !(m_flowGroup[idx] & 0x8000))
        return false;
    out.idx = idx;
    out.flow_group = m_flowGroup[idx];
    out.group = uint8_t(m_flowGroup[idx] & 0x1F);
    out.flow_rtt = m_flowRtt[idx];
    const uint32_t raw = out.flow_rtt;
    out.rtt_units = (raw == 0 || (raw & RTT_PENDING)) ? m_c.default_rtt_units
                    : (raw & 0xFFFFFF80u) == 0        ? uint32_t(G::RTT_MIN_UNITS)
                                                      : std::min(raw, uint32_t(G::RTT_MAX_UNITS));
    out.flow_pkts = m_flowPkts[idx];
    out.flow_bytes = m_flowBytes[idx];
    out.flow_deadline = uint32_t(m_flowDeadline[idx]);
    out.ignore = m_flowIgnore[idx];
    out.retx_run = m_flowRetx[idx].hi;
    out.retx_now = m_flowRetx[idx].lo;
    out.seq_lo = m_flowSeq[idx].lo;
    out.seq_hi = m_flowSeq[idx].hi;
    out.family = m_flowFamily[idx];
    out.ss_state = m_flowSs[idx].hi;
    out.rate_s_lo = m_flowRateS[idx].lo;
    out.rate_s_hi = m_flowRateS[idx].hi;
    out.eg_sig = m_flowEgSig[idx];
    return true;
}

bool
Pipeline::SetFlowGroup(uint32_t src, uint16_t sport, uint32_t dst, uint16_t dport, uint8_t group)
{
    FlowRegs r;
    if (!ReadFlow(src, sport, dst, dport, r))
        return false;
    m_flowGroup[r.idx] = uint16_t((m_flowGroup[r.idx] & ~0x1Fu) | (group & 0x1Fu));
    return true;
}

int
Pipeline::GroupOf(uint32_t src, uint16_t sport, uint32_t dst, uint16_t dport) const
{
    FlowRegs r;
    return ReadFlow(src, sport, dst, dport, r) ? int(r.group) : -1;
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
        o << (i ? "," : "") << "{\"queue\":" << i << ",\"ctv\":" << q.q_ctv
          << ",\"max_delay_us\":" << q.max_delay_ns / 1000 << ",\"limit\":" << q.limit << ",\"drops\":" << q.drops
          << ",\"marks\":" << q.marks << ",\"limit_drops\":" << q.q_limit_drops
          << ",\"buffer_drops\":" << q.buffer_drops << "}";
    }
    o << "],\"queued_pkts\":" << m_totalPkts << ",\"active_queues\":" << m_active.size()
      << ",\"collisions\":" << m_untracked[0] << ",\"fair_rate_bin\":" << int(m_fairRateBin) << "}";
    return o.str();
}

// ---------------------------------------------------------------- diagnostics (model-only)
// Counters of the verdicts, read by the simulator; no decision reads them. They cost one hash-map
// look-up per arriving packet and a few additions per dequeued one.

FlowDiag&
Pipeline::DiagFlow(const Pkt& p, uint32_t flow_idx, uint8_t group)
{
    auto [it, fresh] = m_diag.flows.try_emplace(flow_idx);
    FlowDiag& d = it->second;
    if (fresh)
        d.src = p.src, d.sport = p.sport, d.dst = p.dst, d.dport = p.dport;
    else if (!((d.src == p.src && d.sport == p.sport && d.dst == p.dst && d.dport == p.dport) ||
               (d.src == p.dst && d.sport == p.dport && d.dst == p.src && d.dport == p.sport)))
        m_diag.key_collisions++; // two flows share a 32-bit hash: their counts merge (reported)
    d.pkts++;
    d.pkts_ant += group == GROUP_ANT;
    d.pkts_mouse += group == GROUP_MOUSE;
    return d;
}

void
Pipeline::DiagDequeue(const Bridged& b, const EgMd& e, const QueueState& q, uint8_t qi, Action a)
{
    // the verdict, on the entry the packet's arrival made (Enqueue hashes every packet)
    FlowDiag& d = m_diag.flows[b.flow_idx];
    d.pv += a == Action::DROP_PV;
    d.limit += a == Action::DROP_LIMIT;
    d.ss += a == Action::DROP_PROACTIVE;
    d.marks += a == Action::MARK;
    // the CTV this packet met against the controller's range for its queue
    if (m_diag.queues.size() < m_q.size())
        m_diag.queues.resize(m_q.size());
    QueueDiag& qd = m_diag.queues[qi];
    qd.pkts++;
    qd.at_lo += e.ctv == q.ctv_lo;
    qd.at_hi += e.ctv == q.ctv_hi;
    qd.at_edge += e.ctv == q.ctv_lo || e.ctv == q.ctv_hi;
    // R* = TVF^-1(CTV) on the model's falling TVF (pv_max/2 at the scale's bin C, (pv_max + 1)/(2 d h)
    // per bin, d = steps per decade, h = half-span decades; D22), continuous, + 1 bin for the
    // marker's whole-bin floor of pos (docs/eval.md), against the controller's fair rate (a port
    // without flows of its own: the fabric's share). Without either there is none.
    if (!m_haveFair)
        return;
    const double dd = double(m_c.tvf_steps_per_decade);
    const double istar = double(m_c.tvf_scale_bin) + 1.0 +
                         (double(m_c.pv_max) / 2.0 - double(e.ctv)) * 2.0 * dd * double(m_c.tvf_half_span_decades) /
                             double(m_c.pv_max + 1);
    const double x = std::log10(double(m_c.tvf_min_kbps)) + istar / dd - std::log10(double(m_diagFairBps) / 1e3);
    const int nb = 2 * Diag::kRstarDecades * Diag::kRstarBinsPerDecade;
    if (m_diag.rstar_hist.size() != size_t(nb))
        m_diag.rstar_hist.assign(size_t(nb), 0);
    const int bin = int(std::floor((x + Diag::kRstarDecades) * Diag::kRstarBinsPerDecade));
    m_diag.rstar_hist[size_t(std::clamp(bin, 0, nb - 1))]++;
    m_diag.rstar_sum += std::pow(10.0, x);
}

void
Pipeline::ResetDiag()
{
    // flows keep their tuples (a flow's later packets find their entry); counts restart
    for (auto& [k, d] : m_diag.flows)
    {
        const FlowDiag keep = d;
        d = FlowDiag{};
        d.src = keep.src, d.sport = keep.sport, d.dst = keep.dst, d.dport = keep.dport;
    }
    m_diag.queues.assign(m_q.size(), QueueDiag{});
    m_diag.rstar_hist.assign(m_diag.rstar_hist.size(), 0);
    m_diag.rstar_sum = 0;
    m_diag.key_collisions = 0;
    m_diag.corr_sum.assign(m_nGroups, 0.0);
    m_diag.corr_rounds = 0;
    m_diag.queue_moves = m_diag.queue_moved_flows = 0;
}

uint64_t
Pipeline::RstarSamples() const
{
    uint64_t n = 0;
    for (uint64_t c : m_diag.rstar_hist)
        n += c;
    return n;
}

double
Pipeline::RstarOverFair(double q) const
{
    const uint64_t n = RstarSamples();
    if (n == 0)
        return 0.0;
    // the bin holding the sample of rank ceil(q n) (1-based; q = 0: the smallest), at its centre
    const uint64_t rank = std::max<uint64_t>(1, uint64_t(std::ceil(std::clamp(q, 0.0, 1.0) * double(n))));
    uint64_t cum = 0;
    for (size_t i = 0; i < m_diag.rstar_hist.size(); ++i)
    {
        cum += m_diag.rstar_hist[i];
        if (cum >= rank)
            return std::pow(10.0, (double(i) + 0.5) / Diag::kRstarBinsPerDecade - Diag::kRstarDecades);
    }
    return 0.0;
}

} // namespace ccfair
