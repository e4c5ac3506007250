// SPDX-License-Identifier: Apache-2.0
// The ccfair switch pipeline as plain C++ (no ns-3): flow tracking, fingerprinting,
// group -> queue choice, packet-value marking, per-queue packet-value AQM, Cocoa
// buffer limits and DRR scheduling across queues. Per-packet paths use only
// table look-ups, shifts, adds and compares (what a Tofino stage can do); the
// divisions live in ControllerTick() and in Cocoa's rare overflow events, which
// on a switch run on the controller / switch CPU. See docs/eval-model.md.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

namespace ccfair
{

/** Knobs of the model. Defaults() reads every value from params/ccfair.json (generated header). */
struct Config
{
    uint64_t link_rate_bps;
    uint32_t num_queues;       // queues per port
    uint32_t quantum_bytes;    // DRR quantum (equal weights: queues.default_weight)
    uint32_t flow_table_size;  // power of two
    uint32_t signature_bits;
    uint32_t default_rtt_us, min_rtt_us, max_rtt_us;
    uint32_t ant_max_pkts;
    uint32_t idle_intervals;
    uint32_t k;                // sub-groups per family
    uint32_t m_ld, m_pl, m_m;
    uint32_t aggr_growth_shift, bwest_up_shift, bwest_down_shift, bdp_shift;
    bool ss_proactive_drop;
    uint32_t tvf_steps, tvf_min_kbps, tvf_steps_per_decade, pv_max;
    uint32_t target_delay_us, ctv_update_interval_us, ctv_step_up, ctv_step_down;
    bool ecn;
    bool pv_aqm = true;        // packet-value AQM on (see docs/eval-model.md: off in the ns-3 adapter by default)
    uint32_t cocoa_initial, cocoa_min, cocoa_max, cocoa_max_gi_ms;
    double cocoa_gi_mult, cocoa_max_increase;
    uint32_t buffer_pkts;      // shared physical buffer of the port (0 = unlimited)
    static Config Defaults();
};

/** A packet as the parser hands it to ingress. Addresses/ports in host order. */
struct Pkt
{
    uint64_t t_ns = 0;
    uint32_t src = 0, dst = 0;
    uint16_t sport = 0, dport = 0;
    bool tcp = true;
    uint8_t flags = 0;         // TCP flags (FIN 1, SYN 2, RST 4, PSH 8, ACK 16)
    uint32_t size = 0;         // bytes on the wire (IP packet)
    uint32_t payload = 0;      // TCP payload bytes
    bool ect = false;          // ECN-capable transport
    uint16_t rand16 = 0;       // random bits for the PV draw (0 = draw from the pipeline's PRNG)
};

enum TcpFlag : uint8_t
{
    FIN = 1,
    SYN = 2,
    RST = 4,
    PSH = 8,
    ACK = 16
};

enum class Verdict : uint8_t
{
    ENQUEUED,
    DROP_PROACTIVE, // slow-start end by fair BDP
    DROP_LIMIT,     // Cocoa limit of the queue or the port's buffer
};

struct EnqResult
{
    Verdict verdict;
    int flow;       // flow-table slot, -1 untracked
    uint8_t group;
    uint8_t queue;
    uint16_t pv;
};

enum class Action : uint8_t
{
    FORWARD,
    DROP,
    MARK
};

struct DeqResult
{
    bool valid = false;
    uint8_t queue = 0;
    Action action = Action::FORWARD;
    uint16_t pv = 0;
    uint16_t ctv = 0;
    uint64_t sojourn_ns = 0;
};

/** One flow-table slot: the registers the P4 program keeps per flow (plus the key, model-only, for traces). */
struct Flow
{
    bool valid = false;
    uint16_t sig = 0;
    uint32_t a_ip = 0, b_ip = 0;   // key in canonical order (model-only: traces and GetFlowGroup)
    uint16_t a_port = 0, b_port = 0;
    uint32_t gen = 0;              // bumps when the slot is reused (egress updates check it)
    // handshake
    bool hs_pending = false;
    bool syn_dir = false;
    uint64_t syn_t = 0;
    uint32_t rtt_us = 0;
    // current interval (ingress counters; max_depth written by egress)
    uint64_t int_start = 0;
    uint32_t pkts = 0, bytes = 0, acks = 0, max_depth = 0;
    // previous interval
    bool prev_valid = false;
    uint32_t prev_pkts = 0, prev_max_depth = 0;
    int32_t log_rate = INT32_MIN;  // log2(bytes/us) Q8 of the last full interval; INT32_MIN unknown
    // classifier
    uint8_t aggr = 0, bwest = 0, bw_phase = 0, since_pattern = 0;
    int32_t up_log_rate = 0;
    bool ss_dropped = false;
    bool aqm_dropped = false;      // the AQM already dropped one of this interval's packets
    uint8_t group = 1;
    uint8_t slot = 0;
    uint32_t intervals = 0;        // completed intervals (roll-overs) since tracking began
    uint64_t last_seen = 0;
};

struct GroupStats
{
    uint64_t pkts = 0, bytes = 0, drops = 0, marks = 0;
    uint32_t active = 0; // from the last controller tick
    uint64_t tick_pkts = 0, tick_bytes = 0, tick_drops = 0; // counters at the last controller tick
};

struct QueueState
{
    // packet metadata in FIFO order (what the TM carries as bridged metadata)
    struct Meta
    {
        uint32_t size;
        uint64_t enq_t;
        int flow;
        uint32_t gen;
        uint16_t pv;
        bool ect;
        uint8_t group;
        uint32_t enq_depth;
    };
    std::deque<Meta> fifo;
    uint32_t bytes = 0;
    int32_t deficit = 0;
    bool active = false;
    // packet-value AQM
    uint16_t ctv = 0;
    uint16_t ctv_lo = 0, ctv_hi = 0; // controller-set range around the fair rate's PV
    uint64_t ctv_last = 0;
    uint64_t max_delay_ns = 0;
    // Cocoa
    uint32_t limit = 0;
    uint64_t gi_start = 0, gi_len = 0;
    uint64_t li_start = 0;
    uint32_t li_min = 0;
    uint64_t longest_li = 0;
    uint32_t longest_li_min = 0;
    uint64_t int_start = 0, idle_ns = 0, idle_since = 0;
    bool idle = true;
    uint32_t sent = 0;
    uint64_t drops = 0, marks = 0, tail_drops = 0;
};

class Pipeline
{
  public:
    explicit Pipeline(const Config& c = Config::Defaults(), uint64_t seed = 1);

    /** Ingress + traffic-manager admission. On ENQUEUED the packet is at the tail of queue r.queue. */
    EnqResult Enqueue(const Pkt& p);
    /** Scheduler + egress: picks the next queue (DRR), pops its head and runs the AQM on it. */
    DeqResult Dequeue(uint64_t now_ns);
    /** The emulated controller: expiry scan, group populations, queue allocation, fair rate, RTT bands. */
    void ControllerTick(uint64_t now_ns);

    // --- read-out
    int GroupOf(uint32_t src, uint16_t sport, uint32_t dst, uint16_t dport) const;
    const Flow* FindFlow(uint32_t src, uint16_t sport, uint32_t dst, uint16_t dport) const;
    const Config& Cfg() const { return m_c; }
    const std::vector<QueueState>& Queues() const { return m_q; }
    const std::vector<GroupStats>& Groups() const { return m_g; }
    uint32_t TotalPackets() const { return m_totalPkts; }
    uint64_t FairRateBps() const { return m_fairBps; }
    uint64_t Collisions() const { return m_collisions; }
    uint8_t QueueOf(uint8_t group, uint8_t slot) const { return m_qmap[group * m_c.num_queues + slot]; }
    uint16_t Tvf(uint8_t group, uint32_t bin) const { return m_tvf[group][bin]; }
    uint32_t RttBoundaryUs() const { return m_rttBoundary; }
    std::string StatsJson() const;

    // --- knobs (controller-written registers / tables)
    Config& MutableCfg() { return m_c; }
    void SetQueueCtv(uint8_t q, uint16_t ctv) { m_q[q].ctv = ctv; }
    void SetFairRate(uint64_t bps);
    void SetRttBoundary(uint32_t us) { m_rttBoundary = us; }

    /** Fired on every reclassification (old != new). */
    std::function<void(const Flow&, uint8_t oldGroup, uint8_t newGroup)> onGroupChange;

    // --- arithmetic the data plane uses (public for tests)
    /** log2(x) in Q8 fixed point from the leading-one position and an 8-bit mantissa table; x = 0 -> INT32_MIN. */
    static int32_t Log2Q8(uint64_t x);
    /** TVF rate bin of a log2(kbps) Q8 value: a range-match table look-up. */
    uint32_t RateBin(int32_t log2_kbps_q8) const;
    /** PV drawn for a flow of rate log2(bytes/us) Q8 with random bits r (1..65535). */
    uint16_t DrawPv(uint8_t group, int32_t log_rate, uint16_t r) const;
    /** Max-min fair rate at group granularity (ControllerTick step 2; the ONOS app's
     *  PolicyCompiler.fairKbps): groups from `first` with flows n[g] that sent less than
     *  fair * n[g] >> shift (sent[g] < 0: unknown, never limited) leave the division;
     *  extraFlows (mice) always count. Never below link / flows, never above link. */
    static double FairRate(double link, const std::vector<uint32_t>& n, const std::vector<double>& sent,
                           uint32_t first, uint32_t shift, uint32_t extraFlows);
    uint8_t SubGroupOfRtt(uint32_t rtt_us) const { return rtt_us >= m_rttBoundary ? 1 : 0; }

  private:
    int Lookup(const Pkt& p, bool& fwd);
    void RollOver(Flow& f, uint64_t t);
    void SetGroup(Flow& f, uint8_t g);
    uint8_t GroupId(uint32_t family, uint32_t sub) const { return uint8_t(2 + family * m_c.k + sub); }
    void CocoaOnFull(QueueState& q, uint64_t t);
    void CocoaGuard(QueueState& q, uint64_t t);
    uint16_t NextRand();

    Config m_c;
    std::vector<Flow> m_flows;
    std::vector<QueueState> m_q;
    std::vector<GroupStats> m_g;
    std::vector<uint8_t> m_qmap;              // [group][slot] -> queue
    std::vector<std::vector<uint16_t>> m_tvf; // [group][bin] -> PV
    std::vector<int32_t> m_binEdges;          // log2(kbps) Q8 lower edge of each bin
    std::vector<uint8_t> m_rrSlot;            // per group: next slot to deal
    std::deque<uint8_t> m_active;             // DRR active list
    int32_t m_bwUpQ8 = 0, m_bwDownQ8 = 0;       // log2(1 + 2^-up), log2(1 - 2^-down) Q8
    uint32_t m_fairBin = 0;                   // TVF bin of the fair rate
    int32_t m_logFairRate;                    // log2(bytes/us) Q8 of the fair rate
    uint64_t m_lastTick = 0;                  // time of the last controller tick (0: none yet)
    uint64_t m_fairBps = 0;                   // fair rate of the last tick
    uint32_t m_rttBoundary;
    uint32_t m_totalPkts = 0;
    uint64_t m_collisions = 0;
    uint64_t m_rng;
    uint32_t m_nGroups;
};

} // namespace ccfair
