// SPDX-License-Identifier: Apache-2.0
// The ccfair switch as plain C++ (no ns-3): a transliteration of the P4 program
// (p4/tna/, normative spec docs/algorithm.md) for one edge port, plus what the
// program leaves to the traffic manager and the ONOS app. One function per P4
// control the model needs, with the program's register and field names, bit
// widths, saturating arithmetic, 1.024 us time units, 80-byte buffer cells and
// the const tables p4/gen_tables.py generates (eval/build/gen/ccfair-tables.h).
// What has no P4 counterpart is labelled "model-only": the TM stand-in (DRR
// scheduler, the port's shared buffer), the emulated controller (ControllerTick:
// the ONOS app's rules), Cocoa's limit updates (controller-side) and read-outs.
// Function <-> control map: docs/eval-model.md.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace ccfair
{

/** The emulated controller's queue layout (params queues.layout; the ONOS app's intent field
 *  queue_layout, docs/policy-api.md). DWRR shares bandwidth per queue, so the layout decides
 *  how many flows divide a queue's share. */
enum class QueueLayout : uint8_t
{
    Shared,   // every long-lived group in one queue per port; ants and mice in their own
    Isolated, // each long-lived group in a queue of its own, picked by the TM's weight (D18)
};
/** "shared" or "isolated"; anything else throws std::invalid_argument naming `field` and the
 *  allowed values. */
QueueLayout ParseQueueLayout(const std::string& text, const std::string& field);
/** The intent's weighted-groups weights as "family:weight,..." (families of params
 *  groups.families; unlisted ones weight 1, as FairnessIntent.weight) -> one weight per family in
 *  FAMILY_* order. "" -> empty (the per-flow objective). Anything else than known families with
 *  numbers in [policy.weight_min, weight_max], each once, throws std::invalid_argument naming
 *  `field`, the family and the allowed values (the app's IntentValidator messages). */
std::vector<double> ParseFamilyWeights(const std::string& text, const std::string& field);

/** Knobs of the model. Defaults() reads every value from params/ccfair.json (generated headers). */
struct Config
{
    uint64_t link_rate_bps;
    uint32_t num_queues;          // queues per port
    uint32_t quantum_bytes;       // DRR quantum of a weight-1 queue (model-only TM stand-in)
    std::vector<uint32_t> dwrr_weights; // per queue (queues.dwrr_weights, validated by the loader); the
                                        // Pipeline pads a model with more queues (NumQueues) with 1s
    uint32_t flow_table_size;     // power of two: 2^FLOW_IDX_BITS slots
    // ingress port_cfg: default_rtt_us in 1.024 us units. The ONOS app writes
    // params' flow.default_rtt_us number as units (docs/algorithm.md §1).
    uint32_t default_rtt_units;
    uint32_t interval_min_units;  // flow.min_interval_us as units: an interval lasts max(RTT, this) (compiled in)
    // egress port_cfg
    uint32_t ant_max_pkts;
    uint32_t m_m;
    uint32_t bdp_shift;           // the controller's fair_rate_bin is of fair >> bdp_shift
    bool ss_proactive_drop;
    // flow_family forgets a back-off after this many clean interval ends in a row, on a port
    // whose port_cfg family_forget is set (classifier.family_forget_intervals, compiled in; D19)
    uint32_t family_forget_intervals;
    uint32_t delay_target_pkts;   // queues.delay_target_pkts: the isolated delay queues' AQM target (D19)
    uint32_t k;                   // sub-groups per family (params groups.k)
    // rtt_band: band 1 from this RTT (units) up; the ONOS app writes
    // policy.rtt_band_boundaries_us[0] as units, static (PolicyDelta)
    uint32_t rtt_boundary_units;
    uint32_t tvf_steps, tvf_min_kbps, tvf_steps_per_decade, pv_max;
    // One packet-value scale for the whole fabric (D22): every TVF is pv_max/2 at this bin (of
    // tvf.centre_kbps) and falls pv_max over 2 x tvf.half_span_decades decades, so a PV marked at
    // one switch means the same rate at every other
    uint32_t tvf_scale_bin, tvf_half_span_decades;
    // aqm_cfg and the AQM's compiled constants
    uint32_t target_delay_units;  // aqm.target_delay_us written as units (as the ONOS app does)
    uint32_t pv_gate_shift;       // aqm.pv_gate_shift: a PV verdict needs sojourn << shift > target (compiled in)
    uint32_t ctv_period_shift;    // CTV_PERIOD_SHIFT: one CTV step per 2^shift ns period
    uint32_t ctv_step_up, ctv_step_down;
    // the controller's CTV range: the owner group's TVF at the centre bin (a model-based group's, outside
    // the shared layout: its weighted share's bin, D20) + these (aqm.ctv_*_bins)
    int32_t ctv_floor_bins, ctv_ceiling_bins;
    int32_t model_shift_bins;     // tvf.model_shift_bins: the model-based groups' curves beside the others' (D14)
    QueueLayout queue_layout;     // the controller's queue layout (params queues.layout)
    // the governing intent's objective: empty = per-flow; else weighted-groups with one weight
    // per family (FAMILY_* order; ParseFamilyWeights)
    std::vector<double> family_weights;
    bool ecn;
    bool pv_aqm = true;           // model-only switch: false = no PV drops/marks (docs/eval-model.md, tuning 6)
    uint32_t cell_bytes;          // buffer cell (Tofino 1: 80 B); enq_qdepth is in cells
    uint32_t cells_per_pkt;       // limit_cells = Cocoa packets x ceil(buffer_pkt_bytes / cell)
    // Cocoa (controller-side in the deployed system)
    uint32_t cocoa_initial, cocoa_min, cocoa_max, cocoa_max_gi_ms;
    double cocoa_gi_mult, cocoa_max_increase;
    uint32_t buffer_pkts;         // model-only TM: the port's shared buffer (0 = unlimited)
    // the controller's share correction (docs/algorithm.md D13; params controller.correction_*),
    // once per round of recompute_period_ns
    uint64_t recompute_period_ns;
    double corr_gain, corr_step_bins, corr_max_bins, corr_min_util, corr_release, corr_quantum_bins;
    // model-only: the switch's timestamp at the model's time 0. A switch has run for a
    // while; at 0 every empty slot would sit in sig_check's 400 ms blind window.
    uint64_t clock_offset_ns = 1ULL << 30;
    static Config Defaults();
};

/** A packet as the parser hands it to ingress: IPv4, TCP or (tcp = false) UDP. Host order. */
struct Pkt
{
    uint64_t t_ns = 0;
    uint32_t src = 0, dst = 0;
    uint16_t sport = 0, dport = 0;
    bool tcp = true;
    uint8_t flags = 0;            // TCP flags (FIN 1, SYN 2, RST 4, PSH 8, ACK 16)
    uint32_t size = 0;            // IPv4 total length
    uint32_t payload = 0;         // TCP payload bytes (0 with ACK alone: a pure ACK)
    bool ect = false;             // ECN-capable transport
    uint16_t rand16 = 0;          // the egress Random<bit<16>> draw; 0 = draw from the model's PRNG
    uint32_t seq = 0;             // TCP sequence number (flow_seq)
    // Arrival on a fabric port (ingress port_cfg role fabric): the shim another switch's
    // ingress edge pushed and its egress marked; the packet is not tracked here.
    bool from_fabric = false;
    uint16_t shim_pv = 0;
    uint8_t shim_group = 0, shim_slot = 0;
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
    DROP_BUFFER, // model-only TM: the port's shared buffer is full
};

struct EnqResult
{
    Verdict verdict;
    int flow;       // flow-table slot of a tracked packet, -1 untracked
    uint8_t group;  // bridged.group: what the packet is queued as
    uint8_t queue;
    uint64_t id;    // the packet's sequence number (DeqResult::id)
};

enum class Action : uint8_t
{
    FORWARD,
    DROP_PV,        // AQM: PV < CTV with a standing queue (every candidate)
    MARK,
    DROP_LIMIT,     // AQM: enq_qdepth > limit_cells
    DROP_PROACTIVE, // classifier: slow start ended at the fair BDP
};

struct DeqResult
{
    bool valid = false;
    uint64_t id = 0;
    uint8_t queue = 0;
    uint8_t group = 0;
    Action action = Action::FORWARD;
    uint16_t pv = 0;
    uint16_t ctv = 0;
    uint64_t sojourn_ns = 0;
    uint8_t slot = 0; // the shim leaves with PV pv, group and slot (model-only read-out)
};

/** A flow's registers as a register read-out sees them (model-only view). */
struct FlowRegs
{
    uint32_t idx = 0;
    uint8_t group = 0;            // flow_group[4:0]
    uint16_t flow_group = 0;
    uint32_t flow_rtt = 0;        // raw: RTT units, or pending SYN time (bit 31)
    uint32_t rtt_units = 0;       // the RTT in effect (rtt_fix)
    uint16_t flow_pkts = 0;
    uint32_t flow_bytes = 0;
    uint32_t flow_deadline = 0;   // the running interval's end, in ig_ts units
    uint8_t ignore = 0;           // flow_ignore: the loss-ignoring count (D15)
    uint8_t retx_run = 0;         // flow_retx.hi: intervals in a row with a retransmission
    uint8_t retx_now = 0;         // flow_retx.lo: a retransmission in the running interval
    uint32_t seq_lo = 0, seq_hi = 0; // flow_seq: highest data sequence number per direction
    uint8_t family = 0;           // flow_family: back-offs after a loss, 0 and 1 delay, 2 loss (FLOW_FAMILY_*)
    uint16_t ss_state = 0;        // flow_ss.hi
    uint16_t rate_s_lo = 0, rate_s_hi = 0; // flow_rate_s: last interval's log rate (RATE_S_NONE: none), + the one before
    uint8_t eg_sig = 0;           // flow_eg_sig: the EG_SIG of the flow egress last saw in the slot
};

/** Per-group telemetry (pg_pkts, pg_drops, pg_marks) and the controller's view. */
struct GroupStats
{
    uint64_t pkts = 0, bytes = 0, drops = 0, marks = 0;
    uint32_t active = 0; // pg_flow_enter - pg_flow_leave at the last controller tick
};

/** What ingress hands egress through the TM (bridged header and packet fields egress reads). */
struct Bridged
{
    uint64_t id = 0;
    uint32_t ig_ts = 0;           // global_tstamp[41:10]
    uint32_t flow_idx = 0;        // 32-bit hash; low FLOW_IDX_BITS index the registers
    uint8_t tracked = 0, flow_new = 0, interval_end = 0, from_edge = 0;
    uint16_t int_pkts = 0;
    uint32_t int_bytes = 0;
    uint32_t rtt_us = 0;          // units, as bridged.rtt_us
    uint8_t group = 0, qid = 0;
    uint16_t shim_pv = 0;
    uint8_t slot = 0;             // hdr.shim.slot (what a fabric switch's queue_map reads)
    uint8_t retx = 0;             // a data segment not above its direction's highest sequence number
    uint8_t int_retx = 0;         // at an interval end: the retransmission run (flow_retx.hi)
    // packet and TM fields egress reads
    uint32_t size = 0;
    bool ect = false;
    uint16_t rand16 = 0;
    uint32_t enq_qdepth = 0;      // cells in the queue at enqueue (TM intrinsic metadata)
    uint64_t enq_t_ns = 0;        // model-only: sojourn read-out
};

struct QueueState
{
    // model-only TM: the queue's packets and DRR state
    std::deque<Bridged> fifo;
    uint32_t cells = 0;
    int32_t deficit = 0;
    bool active = false;
    // per-queue registers of the AQM (aqm.p4) and its aqm_cfg entry
    uint16_t q_ctv = 0, q_ctv_tick = 0;
    uint32_t q_max_delay = 0, q_min_depth = 0xFFFFFFFF;
    uint64_t q_limit_drops = 0;
    uint16_t ctv_lo = 0, ctv_hi = 0xFFFF;
    uint32_t target_units = 0; // aqm_cfg target_delay of this queue; 0: the port's (Config)
    // model-only statistics
    uint64_t max_delay_ns = 0, drops = 0, marks = 0, buffer_drops = 0;
    // Cocoa (controller-side in the deployed system): limit in packets
    uint32_t limit = 0;
    // D21: a delay group's own queue (isolated layout) holds delay_target_pkts a flow: Cocoa's
    // shrink stops there (0: cocoa_min only)
    uint32_t limit_floor = 0;
    uint64_t gi_start = 0, gi_len = 0;
    uint64_t li_start = 0;
    uint32_t li_min = 0;
    uint64_t longest_li = 0;
    uint32_t longest_li_min = 0;
    uint64_t int_start = 0, idle_ns = 0, idle_since = 0;
    bool idle = true;
    uint32_t sent = 0;
};

/** Model-only diagnostics of one flow (read-out; no decision reads it): where its packets were
 *  queued and the verdicts they got. Keyed by the full 32-bit flow hash (flow_idx before masking),
 *  so packets of untracked (colliding) flows are counted too. */
struct FlowDiag
{
    uint32_t src = 0, dst = 0; // the tuple of the flow's first packet
    uint16_t sport = 0, dport = 0;
    uint64_t pkts = 0, pkts_ant = 0, pkts_mouse = 0; // arrivals, by the group they are queued as
    uint64_t pv = 0, limit = 0, buffer = 0, ss = 0;  // drops: PV < CTV, Cocoa limit, shared buffer, slow-start
    uint64_t marks = 0;                              // CE marks
};

/** Model-only diagnostics of one queue: packets dequeued, and how many of them found the CTV at
 *  the controller's range edge (ctv_lo or ctv_hi): an AQM pinned at an edge does not regulate. */
struct QueueDiag
{
    uint64_t pkts = 0, at_lo = 0, at_hi = 0, at_edge = 0;
};

/** All model-only diagnostics since the last Pipeline::ResetDiag(). */
struct Diag
{
    std::unordered_map<uint32_t, FlowDiag> flows;
    std::vector<QueueDiag> queues;
    // R*/fair per dequeued packet while the controller has a fair rate: log10 in kRstarBinsPerDecade
    // bins over [-kRstarDecades, +kRstarDecades) (the ends collect what lies beyond)
    static constexpr int kRstarBinsPerDecade = 200, kRstarDecades = 2;
    std::vector<uint64_t> rstar_hist;
    double rstar_sum = 0;       // sum of R*/fair, for the mean
    uint64_t key_collisions = 0; // packets whose 32-bit flow hash was first seen with another tuple
    // the share correction (D13) per group as applied, summed over the correction's rounds
    std::vector<double> corr_sum;
    uint64_t corr_rounds = 0;
    // long-lived groups that have flows after a policy that moved their queue (the isolated layout
    // follows their flow counts, D18; a moved group's packets queued before and after meet
    // different queues), and those flows
    uint64_t queue_moves = 0;
    uint64_t queue_moved_flows = 0;
};

class Pipeline
{
  public:
    explicit Pipeline(const Config& c = Config::Defaults(), uint64_t seed = 1);

    /** Ingress (IngressPipe) and the TM's admission. On ENQUEUED the packet is at the tail of queue r.queue. */
    EnqResult Enqueue(const Pkt& p);
    /** TM scheduler (model-only DRR) and egress (EgressPipe) for the next packet. */
    DeqResult Dequeue(uint64_t now_ns);
    /** The emulated ONOS app: flow gauges, fair rate, queue allocation, TVFs, CTV ranges. */
    void ControllerTick(uint64_t now_ns);
    /** The app's compileDevice for the model's port, from active flows per group: fair rate,
     *  fair_rate_bin, TVFs, queue_map, CTV ranges. */
    void ApplyPolicy(const std::vector<uint32_t>& flows);
    /** One round of the share correction (D13; the app's ShareCorrection.step): from each group's
     *  active flows, the bits it forwarded and the packets the AQM dropped or marked of it
     *  (`signalled`) over `seconds`, moves each long-lived group's correction (bins added to its
     *  curve's shift at the next ApplyPolicy). */
    void CorrectShares(const std::vector<uint32_t>& flows, const std::vector<double>& forwardedBits,
                       const std::vector<uint64_t>& signalled, double seconds);
    const std::vector<double>& Correction() const { return m_corr; }
    /** Group g's correction as ApplyPolicy adds it to the curve's shift: in steps of
     *  correction_quantum_bins (ShareCorrection.applied). */
    double AppliedCorrection(uint32_t g) const;
    /** The correction's state (a controller case's start): corrections and each group's flows at the
     *  previous round. */
    void SetCorrection(const std::vector<double>& c, const std::vector<uint32_t>& prevFlows)
    {
        m_corr = c, m_corrPrevFlows = prevFlows;
    }

    // --- read-out (model-only: as a register read of the flow's slot)
    /** Group of the flow (either direction); -1 if its slot does not hold it. */
    int GroupOf(uint32_t src, uint16_t sport, uint32_t dst, uint16_t dport) const;
    bool ReadFlow(uint32_t src, uint16_t sport, uint32_t dst, uint16_t dport, FlowRegs& out) const;
    const Config& Cfg() const { return m_c; }
    const std::vector<QueueState>& Queues() const { return m_q; }
    const std::vector<GroupStats>& Groups() const { return m_g; }
    uint32_t TotalPackets() const { return m_totalPkts; }
    uint64_t FairRateBps() const { return m_fairBps; }
    uint8_t FairRateBin() const { return m_fairRateBin; }
    uint32_t CentreBin() const { return m_centreBin; }
    /** Active flows per group as the last controller round counted them (pg_flow_enter - leave). */
    std::vector<uint32_t> ActiveFlows() const;
    /** The rest of the fabric's long-lived flows per group, as the controller's view of every
     *  other switch gives them (D22); empty: this switch is the fabric. */
    void SetFabricFlows(std::vector<uint32_t> n) { m_fabricFlows = std::move(n); }
    uint64_t Collisions() const { return m_untracked[0]; }
    uint64_t FlowsEntered(uint8_t group) const { return m_pgFlowEnter[group]; }
    uint64_t FlowsLeft(uint8_t group) const { return m_pgFlowLeave[group]; }
    uint8_t QueueOf(uint8_t group, uint8_t slot) const { return m_queueMap[group * kSlots + (slot & (kSlots - 1))]; }
    uint16_t Tvf(uint8_t group, uint32_t bin) const { return m_tvf[group][bin]; }
    std::string StatsJson() const;

    // --- diagnostics (model-only, always on): counted where the verdicts are decided
    /** Start a new diagnostics window (the simulator calls it at the end of warm-up). */
    void ResetDiag();
    const Diag& Diagnostics() const { return m_diag; }
    /** Quantile q in [0, 1] of R* over the fair rate for the window's packets (R* = TVF^-1 of the CTV they met);
     *  0 without samples. */
    double RstarOverFair(double q) const;
    uint64_t RstarSamples() const;

    // --- controller writes
    void SetQueueCtv(uint8_t q, uint16_t ctv) { m_q[q].q_ctv = ctv; }
    void SetQueueCtvRange(uint8_t q, uint16_t lo, uint16_t hi) { m_q[q].ctv_lo = lo, m_q[q].ctv_hi = hi; }
    /** The controller's fair rate: the CTV ranges read at its bin (the TVFs are the fabric's scale,
     *  D22) and fair_rate_bin = bin(bps >> bdp_shift). */
    void SetFairRate(uint64_t bps);
    // Test hook: port_cfg's fair_rate_bin alone, e.g. the table default 255 a vector without a
    // fair rate runs with on BMv2 (ptf-tests/tests/base_test.py).
    void SetPortFairRateBin(uint8_t bin) { m_fairRateBin = bin; }
    // Test hook: port_cfg's family_forget as a vector sets it (the controller: isolated layout, D19)
    void SetFamilyForget(bool on) { m_familyForget = on ? 1 : 0; }
    uint8_t FamilyForget() const { return m_familyForget; }
    void SetRttBoundaryUnits(uint32_t u) { m_c.rtt_boundary_units = u; }
    /** A register write of the group bits of a tracked flow's flow_group word (as the PTF suite's
     *  Thrift write); false if its slot does not hold it. */
    bool SetFlowGroup(uint32_t src, uint16_t sport, uint32_t dst, uint16_t dport, uint8_t group);

    /** Model-only trace: flow_group's group changed (new flow: ant -> mouse; an update). */
    std::function<void(uint32_t src, uint16_t sport, uint32_t dst, uint16_t dport, uint8_t oldGroup,
                       uint8_t newGroup)>
        onGroupChange;

    // --- the const tables (p4/gen_tables.py) and hashes, public for tests
    static uint16_t LogBytes(uint32_t int_bytes);
    static uint16_t LogRtt(uint32_t rtt_us);
    static uint16_t LogU(uint16_t u);        // nlog_u; u = 0 -> 0xFFFF (default action)
    uint8_t GroupOfKeys(uint16_t sparse_gap, uint16_t ss_state, uint8_t t_mm, uint8_t family, uint8_t band) const;
    static uint32_t Crc32(const uint8_t* d, size_t n);
    // the bridged flow_idx of a connection, either direction: CRC32 of the symmetric tuple (hash_idx)
    static uint32_t FlowHash(uint32_t src, uint16_t sport, uint32_t dst, uint16_t dport, uint8_t proto = 6);
    static uint16_t Crc16(const uint8_t* d, size_t n);
    /** TVF lookup as the marker does it: whole bin pos[9:2] of (lr_pv |-| nlog_u); miss -> pv_max. */
    uint16_t TvfPv(uint8_t group, uint16_t lr_pv, uint16_t u) const;
    /** Fair rate of one long-lived flow (PolicyCompiler.fairKbps): link / the long-lived flows
     *  (groups from `first`); 0 when they hold none. With `weight` (per group; empty: 1
     *  everywhere) the rate of a weight-1 flow when a flow of group g counts weight[g] times. No
     *  max-min step on forwarded rates (algorithm.md D12). */
    static double FairRate(double link, const std::vector<uint32_t>& n, uint32_t first,
                           const std::vector<double>& weight = {});
    /** Queues per group (PolicyCompiler.allocate): ants `antQ`, mice `miceQ` (given back, mice
     *  first, where they do not fit), 1 for every long-lived group (shared layout: all of them the
     *  same queue, FirstQueues; isolated: a queue each, IsolatedFirst). */
    static std::vector<uint32_t> Allocate(uint32_t numQueues, uint32_t numGroups, uint32_t antQ, uint32_t miceQ,
                                          QueueLayout layout = QueueLayout::Isolated);
    /** Per group the weight of the intent's objective (PolicyCompiler.plan): 0 for ants and
     *  mice, 1 for every long-lived group under per-flow, its family's weight under weighted-groups. */
    std::vector<double> GroupWeights() const;
    /** First queue of each group (QueueSplit): groups one after the other in id order; shared
     *  layout: the long-lived groups all start at one common queue. */
    static std::vector<uint32_t> FirstQueues(const std::vector<uint32_t>& queues, QueueLayout layout);
    /** The isolated layout's queue of each long-lived group (PolicyCompiler.assign, D18): among
     *  the queues after the ants' and mice' (`queues` from Allocate), the one whose DWRR weight
     *  (`dwrr`, per queue) makes the busy groups' weights follow flows x `weight` (empty: 1) with
     *  the smallest largest error |ln(dwrr / (scale x demand))|; ants and mice as FirstQueues. */
    static std::vector<uint32_t> IsolatedFirst(const std::vector<uint32_t>& queues, const std::vector<uint32_t>& flows,
                                               const std::vector<double>& weight,
                                               const std::vector<uint32_t>& dwrr);

    static constexpr uint32_t kSlots = 4; // queue_map slots per group (SLOT_MASK + 1), checked in the .cc

  private:
    struct IgMd; // ingress metadata (md.* of IngressPipe / FlowTracker)
    struct EgMd; // egress metadata (md.* of EgressPipe)
    struct SigPair
    {
        uint16_t sig = 0, seen = 0;
    };
    struct Pair8
    {
        uint8_t lo = 0, hi = 0;
    };
    struct Pair16
    {
        uint16_t lo = 0, hi = 0;
    };
    struct Pair32
    {
        uint32_t lo = 0, hi = 0;
    };

    // ingress controls
    void FlowTracker(const Pkt& p, IgMd& md);
    void DeadlineOp(IgMd& md);
    void GroupUpdate(IgMd& md);
    void QueueMap(IgMd& md);
    void UpdatePacket(uint32_t flow_idx, uint16_t fg); // the recirculated update through ingress
    // egress controls
    void EgressOp(const Bridged& b, EgMd& e) const;
    void Classifier(const Bridged& b, EgMd& e);
    void Marker(const Bridged& b, EgMd& e);
    void Aqm(const Bridged& b, EgMd& e, QueueState& q);
    void Telemetry(const Bridged& b, const EgMd& e);
    // model-only
    void CocoaOnFull(QueueState& q, uint64_t t);
    void CocoaGuard(QueueState& q, uint64_t t);
    FlowDiag& DiagFlow(const Pkt& p, uint32_t flow_idx, uint8_t group);
    void DiagDequeue(const Bridged& b, const EgMd& e, const QueueState& q, uint8_t qi, Action a);
    uint16_t NextRand();
    void SetPortFairRate(uint64_t bps); // port_cfg's fair rate and fair_rate_bin only
    void CentreCurves(uint64_t bps);    // the TVFs (with m_shift) and the centre bin only
    int64_t RateBin(double kbps) const; // Tvf.binOf: the table's bin of a rate
    uint8_t GroupId(uint32_t family, uint32_t sub) const { return uint8_t(2 + family * m_c.k + sub); }

    Config m_c;
    uint32_t m_idxMask;
    uint32_t m_idxBits;            // FLOW_IDX_BITS: log2(flow_table_size); EG_SIG = flow_idx[m_idxBits + 7:m_idxBits]
    // FlowTracker registers (ingress)
    std::vector<SigPair> m_flowSig;
    std::vector<uint32_t> m_flowRtt;
    std::vector<int32_t> m_flowDeadline;
    std::vector<uint16_t> m_flowPkts;
    std::vector<uint32_t> m_flowBytes;
    std::vector<uint16_t> m_flowGroup;
    std::vector<Pair32> m_flowSeq; // flow_seq: highest data sequence number, lo = direction 0, hi = 1 (0: none)
    std::vector<Pair8> m_flowRetx; // flow_retx: lo = a retransmission in this interval, hi = the run
    std::array<uint64_t, 2> m_untracked{}; // [0] collision, [1] not TCP
    // GroupUpdate counters, by pgidx = stats_idx ++ group (the model's port has stats index 0)
    std::vector<uint64_t> m_pgFlowEnter, m_pgFlowLeave;
    // Classifier registers (egress)
    std::vector<int16_t> m_flowRate;
    std::vector<Pair16> m_flowRateS; // flow_rate_s: lo = last interval's log rate (RATE_S_NONE: none), hi = lo + the one before
    std::vector<uint8_t> m_flowIgnore; // flow_ignore: the loss-ignoring count
    std::vector<Pair16> m_flowSs;
    std::vector<uint8_t> m_flowFamily; // flow_family: 0, 1 delay (back-offs); 2 + 4 n loss, n clean ends in a row (D19)
    uint8_t m_familyForget = 0;        // egress port_cfg family_forget (the controller's, D19)
    std::vector<uint8_t> m_flowEgSig; // flow_eg_sig: EG_SIG of the slot's flow as egress knows it (defects 12, 13)
    uint16_t m_updateLimiter = 0;
    // controller-written tables
    std::vector<uint8_t> m_queueMap;          // [group][slot] -> qid
    std::vector<std::vector<uint16_t>> m_tvf; // [group][bin] -> PV
    uint8_t m_fairRateBin = 255;              // egress port_cfg fair_rate_bin (table default; the controller writes it)
    bool m_haveFair = false;                  // the controller saw a long-lived flow (R* diagnostic)
    uint64_t m_diagFairBps = 0;               // the R* diagnostic's fair rate: the port's, else the fabric's (D22)
    uint64_t m_fairBps = 0;                   // port_cfg's fair rate (the link's without a long-lived flow)
    uint32_t m_centreBin = 0;                 // its bin (PolicyCompiler.centreBin): where the CTV range is read
    std::vector<uint32_t> m_fabricFlows;      // the other switches' long-lived flows per group (D22)
    // per group the curve's shift, real: weight shift steps_per_decade x log10(w) (Tvf.shiftOf; 0
    // per-flow) + model_shift_bins for the model-based groups (D14) + the applied correction (D13)
    std::vector<double> m_shift;
    // the share correction per group, bins (D13), and the counters at the start of its round
    std::vector<double> m_corr;
    std::vector<uint32_t> m_corrPrevFlows; // each group's flows at the correction's previous round
    std::vector<GroupStats> m_corrFrom;
    uint64_t m_corrFromNs = 0;
    bool m_corrPrimed = false;
    // model-only
    std::vector<std::array<uint32_t, 4>> m_key; // per slot: the claiming packet's tuple (traces)
    std::vector<QueueState> m_q;
    std::vector<GroupStats> m_g;
    std::deque<uint8_t> m_active;             // DRR active list
    Diag m_diag;                              // diagnostics (read-out only)
    uint32_t m_totalPkts = 0;
    uint64_t m_nextId = 1;
    uint64_t m_rng;
    uint32_t m_nGroups;
};

} // namespace ccfair
