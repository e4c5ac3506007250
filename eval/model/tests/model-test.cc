// SPDX-License-Identifier: Apache-2.0
// Unit tests of the ccfair pipeline and the runner of the shared test vectors
// (testdata/vectors/*.json, format in testdata/README.md). Plain C++ with tiny
// assertion macros; ends with "model: N passed, N failed" and exits 1 on failure.
#include "ccfair-params.h"
#include "ccfair-tables.h"
#include "ccfair-queue-disc.h"
#include "pipeline.h"

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/traffic-control-module.h"

#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <map>
#include <cmath>
#include <dirent.h>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

using namespace ccfair;
using json = nlohmann::json;
namespace P = ccfair::params;

namespace
{
int g_pass = 0, g_fail = 0;
std::string g_ctx;

#define CHECK(cond, msg)                                                                            \
    do                                                                                              \
    {                                                                                               \
        if (cond)                                                                                   \
            ++g_pass;                                                                               \
        else                                                                                        \
        {                                                                                           \
            ++g_fail;                                                                               \
            std::ostringstream _o;                                                                  \
            _o << msg;                                                                              \
            std::cout << "  FAIL " << g_ctx << ": " << _o.str() << " (" #cond ", line " << __LINE__ \
                      << ")\n";                                                                     \
        }                                                                                           \
    } while (0)

constexpr uint64_t US = 1000, MS = 1000000;
constexpr uint32_t RTT_PENDING_TEST = 0x80000000u;

Pkt
Data(uint64_t t, uint32_t src = 0x0a000001, uint16_t sport = 40000, uint32_t dst = 0x0a000101,
     uint16_t dport = 5201, uint32_t size = 1500)
{
    Pkt p;
    p.t_ns = t;
    p.src = src;
    p.dst = dst;
    p.sport = sport;
    p.dport = dport;
    p.flags = ACK;
    p.size = size;
    p.payload = size - 52;
    return p;
}

// ---------------------------------------------------------------- unit tests

Pkt
Ctl(uint64_t t, uint8_t flags, bool rev = false)
{
    Pkt p = rev ? Data(t, 0x0a000101, 5201, 0x0a000001, 40000, 60) : Data(t, 0x0a000001, 40000, 0x0a000101, 5201, 60);
    p.flags = flags;
    p.payload = 0;
    return p;
}

// Defaults with a 10 ms default RTT (9766 units) and the interval floor at it: the floor is not
// the subject of the tests that use it
Config
TenMsConfig()
{
    Config c = Config::Defaults();
    c.default_rtt_units = 9766;
    c.interval_min_units = c.default_rtt_units;
    return c;
}

void
Drain(Pipeline& p, uint64_t t)
{
    while (p.Dequeue(t).valid)
    {
    }
}

// The generated ternary tables (p4/gen_tables.py --cpp): the model's indexed look-up
// is the program's first match, at every bucket edge.
template <size_t N>
uint16_t
FirstMatch(const gen::TEntry (&t)[N], uint32_t x, uint16_t miss)
{
    for (const auto& e : t)
        if ((x & e.mask) == e.value)
            return e.result;
    return miss;
}

void
TestTables()
{
    g_ctx = "tables";
    int bad = 0;
    for (const auto& e : gen::LOG_BYTES)
        for (uint32_t x : {e.value, e.value | ~e.mask})
            bad += Pipeline::LogBytes(x) != FirstMatch(gen::LOG_BYTES, x, 0);
    for (const auto& e : gen::LOG_RTT)
        for (uint32_t x : {e.value, e.value | ~e.mask})
            bad += Pipeline::LogRtt(x) != FirstMatch(gen::LOG_RTT, x, 0);
    for (uint32_t u = 0; u < 65536; ++u)
        bad += Pipeline::LogU(uint16_t(u)) != FirstMatch(gen::LOG_U, u, 0xFFFF);
    CHECK(bad == 0, bad << " look-ups differ from the table's first match");
    // §8.3: 15000 B in 10 ms (9766 units) = 12 Mbit/s = 1200 x 10 kbit/s: 64 log10(1200) = 197 fine units, +-2
    const int lrate = int(Pipeline::LogBytes(15000)) - int(Pipeline::LogRtt(9766));
    CHECK(std::abs(lrate - 197) <= 2, "log_bytes - log_rtt of 12 Mbit/s: " << lrate);
    CHECK(Pipeline::Crc32((const uint8_t*)"123456789", 9) == 0xCBF43926u, "CRC-32 check value");
    CHECK(Pipeline::Crc16((const uint8_t*)"123456789", 9) == 0xBB3D, "CRC-16/ARC check value");
}

// flow_idx and signature are the program's CRCs (ptf-tests/lib/flowhash.py gives 60212 and 48203)
void
TestFlowHash()
{
    g_ctx = "flow-hash";
    Pipeline p;
    EnqResult a = p.Enqueue(Data(0));
    CHECK(a.flow == 60212, "slot of 10.0.0.1:40000 <-> 10.0.1.1:5201 is 60212, got " << a.flow);
    FlowRegs r;
    CHECK(p.ReadFlow(0x0a000101, 5201, 0x0a000001, 40000, r) && r.idx == 60212, "reverse tuple reads the slot");
    // queue_map slot = sig[1:0] = 48203 & 3 = 3 (docs/algorithm.md §5.1): the mouse group's slot-3 queue
    CHECK(a.queue == p.QueueOf(P::GROUP_MOUSE, 48203 & 3), "queue of slot 3: " << int(a.queue));
}

// ReadFlow / GroupOf compare the slot with the signature as sig_check stores it (15-bit CRC +
// 0x8000); 10.0.0.1:40001's CRC-16 (0x404F) has bit 15 clear, where a full 16-bit compare misses
void
TestReadFlowSignature()
{
    g_ctx = "read-flow";
    Pipeline p;
    const uint8_t b[12] = {0x9c, 0x41, 0x0a, 0x00, 0x01, 0x01, 0x14, 0x51, 0x0a, 0x00, 0x00, 0x01};
    CHECK(Pipeline::Crc16(b, 12) == 0x404F, "signature CRC of 10.0.0.1:40001 <-> 10.0.1.1:5201");
    p.Enqueue(Data(0, 0x0a000001, 40001));
    CHECK(p.GroupOf(0x0a000001, 40001, 0x0a000101, 5201) == P::GROUP_MOUSE,
          "a flow whose CRC-16 has bit 15 clear is found: " << p.GroupOf(0x0a000001, 40001, 0x0a000101, 5201));
}

void
TestSymmetricAndCollision()
{
    g_ctx = "flow-table";
    Config c = Config::Defaults();
    c.flow_table_size = 1; // every flow hashes to the one slot
    Pipeline p(c);
    EnqResult a = p.Enqueue(Data(0));
    Pkt rev = Data(1 * US, 0x0a000101, 5201, 0x0a000001, 40000, 52);
    rev.payload = 0;
    EnqResult b = p.Enqueue(rev);
    CHECK(a.flow == 0 && b.flow == 0, "both directions find the same slot");
    CHECK(p.GroupOf(0x0a000101, 5201, 0x0a000001, 40000) == P::GROUP_MOUSE, "reverse lookup sees the flow");
    EnqResult other = p.Enqueue(Data(2 * US, 0x0a000002, 40001));
    CHECK(other.flow == -1 && other.group == P::GROUP_ANT, "a colliding flow is untracked and an ant");
    CHECK(p.Collisions() == 1, "the collision is counted");
    // expiry: EXPIRE_UNITS x 2^18 ns of the 16-bit clock
    const uint64_t expire = uint64_t(gen::EXPIRE_UNITS) << 18;
    // 2 ms of margin: now16 counts 2^20 ns ticks (+-1 tick of rounding)
    EnqResult late = p.Enqueue(Data(2 * US + expire + 2 * MS, 0x0a000002, 40001));
    CHECK(late.flow == 0, "an expired slot is reused by a new flow");
    // Row 5: the clock is 16-bit modular (2^34 ns): 17.18 s after its last use the slot looks busy again
    EnqResult wrap = p.Enqueue(Data(2 * US + expire + 2 * MS + (1ULL << 34) + 1 * MS, 0x0a000003, 40002));
    CHECK(wrap.flow == -1, "a slot idle for 2^34 ns + 1 ms looks busy again: collision (the old model reused it)");
}

// Row 4: a SYN on a tracked slot restarts the flow: mouse, new interval, egress state reset
void
TestSynRestarts()
{
    g_ctx = "syn-restart";
    Config c = TenMsConfig();
    Pipeline p(c);
    p.SetFairRate(10000000000ULL);
    uint64_t t = 0;
    for (int n : {4, 8, 16, 8, 8})
    {
        for (int i = 0; i < n; ++i)
        {
            p.Enqueue(Data(t + i * 500 * US));
            Drain(p, t + i * 500 * US);
        }
        t += 12 * MS;
    }
    CHECK(p.GroupOf(0x0a000001, 40000, 0x0a000101, 5201) == 2, "delay0 after slow start");
    p.Enqueue(Ctl(t, SYN));
    Drain(p, t);
    FlowRegs r;
    p.ReadFlow(0x0a000001, 40000, 0x0a000101, 5201, r);
    CHECK(r.group == P::GROUP_MOUSE && r.flow_pkts == 1 && r.ss_state == 0,
          "a SYN makes it a new mouse with a new interval: group " << int(r.group) << " pkts " << r.flow_pkts);
    CHECK((r.flow_rtt & 0x80000000u) != 0, "and stores its time as a pending RTT sample");
}

// Defects 12 and 13: a new flow whose first packet ingress claims the slot with but drops
// (here the model's TM: the port's shared buffer is full) never resets the slot's egress state
// (CLS_NEW); flow_eg_sig holds the previous occupant's EG_SIG, so the new flow's next packet runs
// as CLS_NEW and its first interval end classifies it from its own state. Before the check it
// inherited the old flow's slow-start end and rate label and went long-lived at that end.
// atEnd: that next packet comes after the claimed interval's deadline, so it is a CLS_END
// (eg_sig_end in the program), which turned CLS_NEW classifies nothing: the group stays the
// claim's (mouse); before the check it was classified from the old flow's state.
void
TestLostReset(bool atEnd)
{
    g_ctx = atEnd ? "lost-reset-end" : "lost-reset";
    Config c = TenMsConfig();
    c.flow_table_size = 1; // A and B share the one slot; EG_SIG is then flow_idx[7:0]
    c.buffer_pkts = 8;
    Pipeline p(c);
    p.SetFairRate(10000000000ULL);
    const uint32_t a = 0x0a000001, b = 0x0a000002, dst = 0x0a000101;
    auto egSig = [&](uint32_t src, uint16_t sport) { return uint8_t(Pipeline::FlowHash(src, sport, dst, 5201)); };
    CHECK(egSig(a, 40000) != egSig(b, 40001), "premise: the two flows' EG_SIG differ");
    uint64_t t = 0;
    for (int n : {4, 8, 16, 8, 8})
    {
        for (int i = 0; i < n; ++i)
        {
            p.Enqueue(Data(t + i * 500 * US, a, 40000));
            Drain(p, t + i * 500 * US);
        }
        t += 12 * MS;
    }
    FlowRegs r;
    p.ReadFlow(a, 40000, dst, 5201, r);
    CHECK(r.group == 2 && r.ss_state != 0 && r.rate_s_lo != 0xFFFF,
          "premise: A is delay0 past slow start with a rate label: group " << int(r.group) << " ss " << r.ss_state);
    const uint16_t a_ss = r.ss_state;
    t += (uint64_t(gen::EXPIRE_UNITS) << 18) + 2 * MS; // A's slot expires
    for (uint32_t i = 0; i < c.buffer_pkts; ++i)       // the buffer fills with untracked UDP
    {
        Pkt u = Data(t, 0x0a000003, uint16_t(7000 + i));
        u.tcp = false;
        p.Enqueue(u);
    }
    EnqResult lost = p.Enqueue(Data(t, b, 40001));
    CHECK(lost.verdict == Verdict::DROP_BUFFER && lost.flow == 0,
          "B's first packet claims the slot and is dropped before egress: flow " << lost.flow);
    Drain(p, t);
    CHECK(p.ReadFlow(b, 40001, dst, 5201, r) && r.ss_state == a_ss,
          "premise: the slot's egress state is still A's: ss " << r.ss_state);
    CHECK(r.eg_sig == egSig(a, 40000), "flow_eg_sig holds A's EG_SIG: " << int(r.eg_sig));
    // inside B's interval: CLS_PKT; atEnd: past its deadline (default RTT 10 ms): CLS_END; either
    // finds A's EG_SIG
    const uint64_t t1 = t + (atEnd ? 12 : 1) * MS;
    p.Enqueue(Data(t1, b, 40001));
    Drain(p, t1);
    p.ReadFlow(b, 40001, dst, 5201, r);
    CHECK(r.eg_sig == egSig(b, 40001), "flow_eg_sig holds B's EG_SIG: " << int(r.eg_sig));
    CHECK(r.ss_state == 0 && r.rate_s_lo == 0xFFFF && r.rate_s_hi == 0 && r.family == 0 && r.ignore == 0,
          "B's packet reset the egress state (CLS_NEW): ss " << r.ss_state << " rate_s " << r.rate_s_lo << "/"
                                                           << r.rate_s_hi);
    if (atEnd)
        CHECK(r.group == P::GROUP_MOUSE, "the interval end turned CLS_NEW classified nothing: group " << int(r.group));
    p.Enqueue(Data(t1 + 11 * MS, b, 40001)); // B's first classified interval end: an ant
    Drain(p, t1 + 11 * MS);
    p.ReadFlow(b, 40001, dst, 5201, r);
    CHECK(r.group == P::GROUP_ANT, "B classified from its own interval (ant), not A's state: group " << int(r.group));
    p.Enqueue(Data(t1 + 12 * MS, b, 40001)); // the same flow's next packet: EG_SIG matches, nothing reset
    Drain(p, t1 + 12 * MS);
    FlowRegs r2;
    p.ReadFlow(b, 40001, dst, 5201, r2);
    CHECK(r2.rate_s_lo == r.rate_s_lo && r2.rate_s_hi == r.rate_s_hi && r2.rate_s_lo != 0xFFFF,
          "a matching EG_SIG keeps the state: rate_s " << r2.rate_s_lo << "/" << r2.rate_s_hi);
}

// Rows 1, 6, 7 and defect 10: the SYN opens a provisional interval (SYN and SYN-ACK count in
// it); the packet completing the RTT sample restarts it, so the first interval starts there.
void
TestFirstInterval()
{
    g_ctx = "first-interval";
    Pipeline p;
    p.Enqueue(Ctl(0, SYN));
    p.Enqueue(Ctl(5 * MS, SYN | ACK, true));
    Pkt ack = Ctl(10 * MS, ACK);
    ack.size = 52;
    FlowRegs r;
    p.ReadFlow(0x0a000001, 40000, 0x0a000101, 5201, r);
    CHECK(r.flow_pkts == 2 && r.flow_bytes == 120, "before the sample, SYN and SYN-ACK counted: " << r.flow_pkts
                                                                                              << " pkts " << r.flow_bytes << " B");
    p.Enqueue(ack);
    p.ReadFlow(0x0a000001, 40000, 0x0a000101, 5201, r);
    CHECK(r.flow_pkts == 0 && r.flow_bytes == 0, "the pure ACK completing the sample restarts the counters: "
                                                     << r.flow_pkts << " pkts " << r.flow_bytes << " B");
    CHECK(r.rtt_units == uint32_t((10 * MS) >> 10), "RTT from the ACK: " << r.rtt_units);
    // the first interval lasts max(RTT, W) from the ACK (W = flow.min_interval_us, 50 ms, above
    // this 10 ms RTT): data packets at ACK + 0.9 RTT, ACK + 1.1 RTT and ACK + 49 ms count in it,
    // one at ACK + 51 ms ends it and starts the next with itself
    Pkt d = Data(19 * MS);
    p.Enqueue(d);
    p.ReadFlow(0x0a000001, 40000, 0x0a000101, 5201, r);
    CHECK(r.flow_pkts == 1, "a data packet inside the first interval: " << r.flow_pkts);
    d.t_ns = 21 * MS;
    p.Enqueue(d);
    p.ReadFlow(0x0a000001, 40000, 0x0a000101, 5201, r);
    CHECK(r.flow_pkts == 2, "the packet one RTT after the sample, below the floor, stays in it: " << r.flow_pkts);
    CHECK(r.rtt_units == uint32_t((10 * MS) >> 10), "the floor leaves the RTT sample raw: " << r.rtt_units);
    d.t_ns = 10 * MS + 49 * MS;
    p.Enqueue(d);
    p.ReadFlow(0x0a000001, 40000, 0x0a000101, 5201, r);
    CHECK(r.flow_pkts == 3, "ACK + 49 ms: still the first interval: " << r.flow_pkts);
    d.t_ns = 10 * MS + 51 * MS;
    p.Enqueue(d);
    p.ReadFlow(0x0a000001, 40000, 0x0a000101, 5201, r);
    CHECK(r.flow_pkts == 1, "the packet one floor (50 ms) after the sample ends the first interval: " << r.flow_pkts);
}

// Defect 16: a handshake across the wrap of the 31-bit pending time stores 0 (default RTT), not a
// negative difference that looks pending and would restart the interval at every later packet.
void
TestRttWrap()
{
    g_ctx = "rtt-wrap";
    Config c = Config::Defaults();
    c.clock_offset_ns = 0;
    Pipeline p(c);
    const uint64_t wrap = (uint64_t(1) << 31) * 1024; // ig_ts[30:0] wraps here
    p.Enqueue(Ctl(wrap - 5 * MS, SYN));
    Pkt ack = Ctl(wrap + 5 * MS, ACK);
    ack.size = 52;
    p.Enqueue(ack);
    FlowRegs r;
    p.ReadFlow(0x0a000001, 40000, 0x0a000101, 5201, r);
    CHECK(r.flow_rtt == 0, "RTT across the wrap: 0x" << std::hex << r.flow_rtt << std::dec);
    Pkt d = Data(wrap + 6 * MS);
    p.Enqueue(d);
    d.t_ns = wrap + 7 * MS;
    p.Enqueue(d);
    p.ReadFlow(0x0a000001, 40000, 0x0a000101, 5201, r);
    CHECK(r.flow_pkts == 2, "later packets count in the interval, none restarts it: " << r.flow_pkts);
}

// Defect 9: a slot claimed without a SYN does not complete a pending SYN time older than
// max_rtt_us (an RTT of the time since a dead handshake) but clears it; a younger one (a handshake
// slower than the expiry) stays for the next packet; a stored RTT from 2^20 units (1.07 s) on
// paces intervals at max_rtt_us, not at its raw value.
void
TestStaleRtt()
{
    g_ctx = "stale-rtt";
    Config c = Config::Defaults(); // the clock starts at 2^30 ns: past the empty slots' blind window
    const uint64_t expire = uint64_t(gen::EXPIRE_UNITS) << 18;
    const uint64_t off = c.clock_offset_ns;
    {
        Pipeline p(c);
        p.Enqueue(Ctl(10 * MS, SYN)); // a handshake that never completes
        const uint64_t max_ns = uint64_t(gen::RTT_MAX_UNITS) << 10;
        CHECK(max_ns > expire + 100 * MS, "max_rtt_us above the expiry (this test's premise)");
        const uint64_t t = 10 * MS + max_ns + 100 * MS;
        p.Enqueue(Data(t)); // the slot expired: claimed without a SYN
        FlowRegs r;
        CHECK(p.ReadFlow(0x0a000001, 40000, 0x0a000101, 5201, r), "the claim is tracked");
        CHECK(r.flow_rtt == 0, "a claim without a SYN keeps no pending SYN time as its RTT: " << r.flow_rtt << " units");
        const uint32_t units = uint32_t(std::max(c.default_rtt_units, c.interval_min_units));
        CHECK(r.flow_deadline - uint32_t((t + off) >> 10) == units,
              "its interval is the default RTT's: " << (r.flow_deadline - uint32_t((t + off) >> 10)) << " units");
    }
    {
        // a handshake slower than the expiry: its ACK claims the slot 0.6 s after the SYN
        Pipeline p(c);
        p.Enqueue(Ctl(10 * MS, SYN));
        p.Enqueue(Ctl(610 * MS, ACK));
        FlowRegs r;
        CHECK(p.ReadFlow(0x0a000001, 40000, 0x0a000101, 5201, r), "the claim is tracked");
        CHECK((r.flow_rtt & RTT_PENDING_TEST) != 0, "a 0.6 s old SYN time stays pending: 0x" << std::hex << r.flow_rtt << std::dec);
        p.Enqueue(Data(611 * MS));
        p.ReadFlow(0x0a000001, 40000, 0x0a000101, 5201, r);
        CHECK(r.flow_rtt == uint32_t(((off + 611 * MS) >> 10) - ((off + 10 * MS) >> 10)),
              "and the next packet completes the sample: " << r.flow_rtt << " units");
    }
    {
        // The blind window (docs/dataplane.md): 2^34 ns after the SYN the idle slot looks busy, so
        // the flow's next packet is a hit and completes a 17.2 s sample.
        Pipeline p(c);
        p.Enqueue(Ctl(10 * MS, SYN));
        uint64_t t = 10 * MS + (1ULL << 34) + 1 * MS;
        p.Enqueue(Data(t));
        FlowRegs r;
        CHECK(p.ReadFlow(0x0a000001, 40000, 0x0a000101, 5201, r), "the hit is tracked");
        CHECK(r.flow_rtt >= (1u << 24) && r.flow_rtt < RTT_PENDING_TEST, "a 17.2 s sample is stored: " << r.flow_rtt);
        // its first interval (the sample's own) lasts the sample; a packet every 0.2 s keeps the slot
        const uint64_t first_end = t + (uint64_t(r.flow_rtt) << 10) + 1 * MS;
        for (t += 200 * MS; t < first_end; t += 200 * MS)
            p.Enqueue(Data(t));
        p.Enqueue(Data(first_end));
        p.ReadFlow(0x0a000001, 40000, 0x0a000101, 5201, r);
        CHECK(r.flow_pkts == 1, "the sample's interval ended: " << r.flow_pkts);
        const uint32_t dl = r.flow_deadline - uint32_t((first_end + off) >> 10);
        CHECK(dl == uint32_t(gen::RTT_MAX_UNITS), "the next lasts max_rtt_us, not the raw 17.2 s: " << dl << " units");
    }
}

// flow_seq_lo / flow_seq_hi and flow_retx (algorithm.md §8.4), the PTF suite's
// test_flow.RetransmissionsPerDirection, and the verdict's exception for model-based flows (D9),
// test_aqm.RetransmissionOfModelBasedFlowDropped.
void
TestRetransmissions()
{
    g_ctx = "retransmissions";
    Config c = Config::Defaults();
    const uint32_t a = 0x0a000001, b = 0x0a000101; // a < b: a's direction is 0 (lo)
    auto seg = [&](uint64_t t, bool rev, uint32_t seq, uint8_t flags = ACK, uint32_t payload = 1448) {
        Pkt p = rev ? Data(t, b, 5201, a, 40000) : Data(t, a, 40000, b, 5201);
        p.seq = seq, p.flags = flags, p.payload = payload;
        if (payload == 0)
            p.size = 52;
        return p;
    };
    {
        Pipeline p(c);
        FlowRegs r;
        p.Enqueue(seg(1 * MS, false, 1000, SYN, 0));
        p.ReadFlow(a, 40000, b, 5201, r);
        CHECK(r.seq_lo == 1000 && r.seq_hi == 0, "a SYN stores its ISN and clears the other direction: " << r.seq_lo << " " << r.seq_hi);
        p.Enqueue(seg(2 * MS, true, 7000, SYN | ACK, 0));
        p.ReadFlow(a, 40000, b, 5201, r);
        CHECK(r.seq_lo == 0 && r.seq_hi == 7000, "so does a SYN-ACK: " << r.seq_lo << " " << r.seq_hi);
        p.Enqueue(seg(3 * MS, false, 1001, ACK, 0));
        p.ReadFlow(a, 40000, b, 5201, r);
        CHECK(r.seq_lo == 0 && r.seq_hi == 7000, "a known flow's pure ACK touches neither: " << r.seq_lo << " " << r.seq_hi);
        p.Enqueue(seg(4 * MS, false, 1001));
        p.Enqueue(seg(5 * MS, true, 7001));
        p.Enqueue(seg(6 * MS, false, 2449));
        p.ReadFlow(a, 40000, b, 5201, r);
        CHECK(r.seq_lo == 2449 && r.seq_hi == 7001 && r.retx_now == 0,
              "each direction keeps its own highest; data below the other direction's is new: " << r.seq_lo << " "
                                                                                                << r.seq_hi << " " << int(r.retx_now));
        p.Enqueue(seg(7 * MS, false, 1001));
        p.ReadFlow(a, 40000, b, 5201, r);
        CHECK(r.seq_lo == 2449 && r.retx_now == 1, "a segment not above the highest is a retransmission: " << int(r.retx_now));
        p.Enqueue(seg(8 * MS, false, 5000, SYN, 0));
        p.ReadFlow(a, 40000, b, 5201, r);
        CHECK(r.seq_lo == 5000 && r.seq_hi == 0 && r.retx_now == 0 && r.retx_run == 0,
              "a SYN restarts both directions and the run: " << r.seq_lo << " " << r.seq_hi << " " << int(r.retx_now));
    }
    {
        // a slot claimed by a pure ACK stores its sequence number: the next segment (the same number) counts as one
        Pipeline p(c);
        FlowRegs r;
        p.Enqueue(seg(1 * MS, false, 9000, ACK, 0));
        p.ReadFlow(a, 40000, b, 5201, r);
        CHECK(r.seq_lo == 9000 && r.seq_hi == 0, "a pure ACK's claim stores its number: " << r.seq_lo);
        p.Enqueue(seg(2 * MS, false, 9000));
        p.ReadFlow(a, 40000, b, 5201, r);
        CHECK(r.retx_now == 1, "and its next segment is one retransmission");
    }
    {
        // the verdict: below the CTV in a standing queue a retransmission passes, unless the flow is model-based
        c.ecn = false;
        Pipeline p(c);
        // 60 segments in 50 ms (~14 Mbit/s), then the roll-over: the flow has a rate label
        uint32_t seq = 1;
        for (int i = 0; i < 60; ++i, seq += 1448)
        {
            p.Enqueue(seg(i * 800 * US, false, seq));
            Drain(p, i * 800 * US);
        }
        p.Enqueue(seg(60 * MS, false, seq));
        Drain(p, 60 * MS);
        p.SetFairRate(1000000); // 1 Mbit/s fair rate; the CTV pinned at 0xFFFF: the flow's PVs are far below it
        for (uint8_t q = 0; q < c.num_queues; ++q)
            p.SetQueueCtvRange(q, 0xFFFF, 0xFFFF), p.SetQueueCtv(q, 0xFFFF);
        auto fate = [&](uint64_t t, uint32_t sq) {
            p.Enqueue(seg(t, false, sq));
            return p.Dequeue(t + 10 * MS); // 10 ms in the queue: a standing queue (target 5 ms)
        };
        const uint8_t model = uint8_t(2 + 2 * c.k + 1);
        const DeqResult n1 = fate(61 * MS, seq + 1448), r1 = fate(72 * MS, seq);
        CHECK(n1.action == Action::DROP_PV && n1.group != model, "a new segment below the CTV is dropped, group " << int(n1.group));
        CHECK(r1.action == Action::FORWARD, "its retransmission passes: action " << int(r1.action));
        CHECK(p.SetFlowGroup(a, 40000, b, 5201, model), "the flow queued as model-based (a register write)");
        const DeqResult r2 = fate(83 * MS, seq);
        CHECK(r2.group == model && r2.action == Action::DROP_PV,
              "a model-based flow's retransmission is dropped: group " << int(r2.group) << " action " << int(r2.action) << " pv " << r2.pv << " ctv " << r2.ctv << " (new " << n1.pv << ")");
    }
}

void
TestDrr()
{
    g_ctx = "drr";
    Config c = Config::Defaults();
    c.cocoa_initial = 1000;
    Pipeline q(c);
    std::map<uint8_t, uint64_t> bytes;
    // ants and mice: an untracked (non-TCP) stream and a TCP stream, in different queues
    for (int i = 0; i < 200; ++i)
    {
        Pkt u = Data(0, 0x0a000009, 9, 0x0a000101, 53, 200);
        u.tcp = false;
        q.Enqueue(u);
        q.Enqueue(Data(0, 0x0a000001, 40000, 0x0a000101, 5201, 1500));
    }
    for (int i = 0; i < 80; ++i)
    {
        DeqResult r = q.Dequeue(1 * MS);
        bytes[r.group] += r.group == P::GROUP_ANT ? 200 : 1500;
    }
    double ratio = double(bytes[P::GROUP_ANT]) / double(bytes[P::GROUP_MOUSE]);
    CHECK(ratio > 0.8 && ratio < 1.25, "DRR shares bytes, not packets: ratio " << ratio);
}

// Four flows (source ports 100..103) through slow start (4, 8, 16 packets an interval) into two
// long-lived intervals of 8: delay0 at a 10 ms RTT once the controller counts them. Returns the
// time after the last interval.
uint64_t
FourDelayFlows(Pipeline& p)
{
    uint64_t t = 0;
    for (int n : {4, 8, 16, 8, 8})
    {
        for (int i = 0; i < n; ++i)
            for (uint16_t f = 0; f < 4; ++f)
            {
                const uint64_t ti = t + i * 500 * US + f * 10 * US; // updates 10 us apart: the limiter admits each
                p.Enqueue(Data(ti, 0x0a000001, uint16_t(100 + f)));
                Drain(p, ti);
            }
        t += 12 * MS;
    }
    return t;
}

// Rows 26, 27, 28: the ONOS app's queue allocation, fair rate from long-lived flows only,
// flow counts from pg_flow_enter - pg_flow_leave
void
TestController()
{
    g_ctx = "controller";
    CHECK(Pipeline::Allocate(16, 8, 1, 1) == std::vector<uint32_t>(8, 1),
          "isolated: ants 1, mice 1, one queue per long-lived group, the rest unused (D18)");
    CHECK(Pipeline::Allocate(16, 8, 1, 1, QueueLayout::Shared) == std::vector<uint32_t>(8, 1),
          "shared: one queue per group, whatever the flows");
    CHECK(Pipeline::Allocate(9, 8, 3, 2) == std::vector<uint32_t>({2, 1, 1, 1, 1, 1, 1, 1}),
          "guarantees that do not fit give back queues, the larger share first, mice on ties");
    CHECK(Pipeline::FirstQueues(std::vector<uint32_t>(8, 1), QueueLayout::Shared) ==
              std::vector<uint32_t>({0, 1, 2, 2, 2, 2, 2, 2}),
          "shared: every long-lived group starts at queue 2");
    CHECK(Pipeline::FirstQueues(std::vector<uint32_t>(8, 1), QueueLayout::Isolated) ==
              std::vector<uint32_t>({0, 1, 2, 3, 4, 5, 6, 7}),
          "isolated without the TM's weights: groups one after the other");
    // D18: each long-lived group's queue by the TM's DWRR weights (queues 2..15 of the default
    // weigh 1 1 1 1 1 1 2 3 4 6 8 12 16 24)
    const std::vector<uint32_t> ladder = {1, 1, 1, 1, 1, 1, 1, 1, 2, 3, 4, 6, 8, 12, 16, 24};
    std::vector<uint32_t> twoOneOne(8, 0);
    twoOneOne[2] = 2, twoOneOne[4] = 1, twoOneOne[7] = 1; // delay0 2, loss0 1, hybrid1 1
    CHECK(Pipeline::IsolatedFirst(std::vector<uint32_t>(8, 1), twoOneOne, {}, ladder) ==
              std::vector<uint32_t>({0, 1, 8, 4, 2, 5, 6, 3}),
          "per-flow 2 : 1 : 1 -> weights 2 (queue 8), 1, 1 (queues 2, 3); groups without flows after, "
          "nearest to a one-flow group's weight: 1, 1, 1");
    std::vector<uint32_t> eightEight(8, 0);
    eightEight[2] = 8, eightEight[4] = 8; // 8 delay0, 8 loss0
    const std::vector<double> w21 = {0, 0, 2, 2, 1, 1, 1, 1};
    CHECK(Pipeline::IsolatedFirst(std::vector<uint32_t>(8, 1), eightEight, w21, ladder)[2] == 8 &&
              Pipeline::IsolatedFirst(std::vector<uint32_t>(8, 1), eightEight, w21, ladder)[4] == 2,
          "delay 2 : loss 1 on 8 + 8 flows: delay0 on a weight-2 queue, loss0 on a weight-1 queue");
    CHECK(Pipeline::IsolatedFirst(std::vector<uint32_t>(8, 1), eightEight, {}, {1, 1, 1, 1, 1, 1}) ==
              std::vector<uint32_t>({0, 1, 2, 3, 4, 5, 6, 7}),
          "fewer queues than groups: ids one after the other (they wrap in the queue map)");
    // Queue moves (Diag::queue_moves): 4 loss0 + 1 loss1 put loss0 on weight 4 (queue 10) and
    // loss1 on weight 1 (queue 2), the first exact scale; with a second loss1 flow the first
    // exact scale puts loss0 on weight 2 (queue 8) and loss1 stays: one move of 4 flows. (The
    // constructor's policy, without flows, comes first: the counts are compared after the
    // first one here.)
    {
        Config mc = Config::Defaults();
        mc.queue_layout = QueueLayout::Isolated;
        mc.dwrr_weights = ladder;
        Pipeline mp(mc);
        std::vector<uint32_t> fl(8, 0);
        fl[4] = 4, fl[5] = 1;
        mp.ApplyPolicy(fl);
        const uint64_t m0 = mp.Diagnostics().queue_moves, f0 = mp.Diagnostics().queue_moved_flows;
        CHECK(mp.QueueOf(4, 0) == 10 && mp.QueueOf(5, 0) == 2,
              "4 + 1 flows: loss0 queue " << int(mp.QueueOf(4, 0)) << " (want 10), loss1 " << int(mp.QueueOf(5, 0))
                                          << " (want 2)");
        fl[5] = 2;
        mp.ApplyPolicy(fl);
        CHECK(mp.QueueOf(4, 0) == 8 && mp.QueueOf(5, 0) == 2 && mp.Diagnostics().queue_moves - m0 == 1 &&
                  mp.Diagnostics().queue_moved_flows - f0 == 4,
              "4 + 2 flows: loss0 moves to queue 8: got " << int(mp.QueueOf(4, 0)) << ", moves "
                                                          << mp.Diagnostics().queue_moves - m0 << " of "
                                                          << mp.Diagnostics().queue_moved_flows - f0
                                                          << " flows (want 1 of 4)");
        mp.ApplyPolicy(fl);
        CHECK(mp.Diagnostics().queue_moves - m0 == 1, "the same flows again: no move");
        // loss1 empties: loss0 alone takes the first weight-1 queue (2, a move of 4 flows); loss1,
        // now without flows, moves too (after delay0 and delay1, to 5) but is not counted
        fl[5] = 0;
        mp.ApplyPolicy(fl);
        CHECK(mp.QueueOf(4, 0) == 2 && mp.QueueOf(5, 0) == 5 && mp.Diagnostics().queue_moves - m0 == 2 &&
                  mp.Diagnostics().queue_moved_flows - f0 == 8,
              "loss1 empties: loss0 queue " << int(mp.QueueOf(4, 0)) << " (want 2), loss1 " << int(mp.QueueOf(5, 0))
                                            << " (want 5), moves " << mp.Diagnostics().queue_moves - m0 << " of "
                                            << mp.Diagnostics().queue_moved_flows - f0 << " flows (want 2 of 8)");
        mp.ResetDiag();
        CHECK(mp.Diagnostics().queue_moves == 0 && mp.Diagnostics().queue_moved_flows == 0, "ResetDiag zeroes the moves");
        // the shared layout's long-lived queue is fixed: the same counts move nothing there
        Config sc = mc;
        sc.queue_layout = QueueLayout::Shared;
        Pipeline sp(sc);
        for (const uint32_t loss1 : {1u, 2u, 0u})
        {
            fl[5] = loss1;
            sp.ApplyPolicy(fl);
        }
        CHECK(sp.Diagnostics().queue_moves == 0 && sp.QueueOf(4, 0) == 2,
              "shared: moves " << sp.Diagnostics().queue_moves << " (want 0), loss0 on queue " << int(sp.QueueOf(4, 0)));
    }
    bool threw = false;
    try
    {
        ParseQueueLayout("fair", "queue_layout");
    }
    catch (const std::invalid_argument& ex)
    {
        threw = std::string(ex.what()) == "queue_layout: unknown queue layout \"fair\" (allowed: shared, isolated)";
    }
    CHECK(threw, "a bad layout names the field and the allowed values");
    // weighted-groups (PolicyCompiler.allocate/fairKbps): demand = flows x weight
    std::vector<uint32_t> two(8, 0);
    two[2] = 2, two[4] = 2; // 2 delay0, 2 loss0
    const std::vector<double> w31 = {0, 0, 3, 3, 1, 1, 1, 1};
    CHECK(Pipeline::FairRate(2e7, two, 2, w31) == 2.5e6,
          "weighted fair rate: 20 Mbit/s / (2 x 3 + 2 x 1) = 2.5 Mbit/s for a weight-1 flow");
    CHECK(ParseFamilyWeights("", "weights").empty(), "no weights: per-flow");
    CHECK(ParseFamilyWeights("loss:3", "weights") == std::vector<double>({1, 3, 1}),
          "unlisted families weigh 1, FAMILY_* order (delay, loss, hybrid)");
    for (const auto& [text, msg] : std::vector<std::pair<std::string, std::string>>{
             {"bbr:2", "w.bbr: unknown family (known: delay, loss, hybrid)"},
             {"loss:0.001", "w.loss: 0.001 outside [0.01, 100]"},
             {"loss:x", "w.loss: expected a number, got \"x\""},
             {"loss:2,loss:3", "w.loss: given twice"}})
    {
        std::string got;
        try
        {
            ParseFamilyWeights(text, "w");
        }
        catch (const std::invalid_argument& ex)
        {
            got = ex.what();
        }
        CHECK(got == msg, "ParseFamilyWeights(\"" << text << "\"): \"" << got << "\", want \"" << msg << "\"");
    }
    CHECK(Pipeline::FairRate(1e8, {0, 5, 0, 0, 0, 0, 0, 0}, 2) == 0,
          "mice only: no fair rate (the old model counted mice)");
    Config c = TenMsConfig();
    CHECK(c.queue_layout == QueueLayout::Shared, "params queues.layout: shared");
    c.queue_layout = QueueLayout::Isolated; // delay0's queue below is its own
    Pipeline p(c);
    // no long-lived flow: the link's bin (100 Mbit/s: 16 log10(10^5 / 10) = 64), not 255 (D7)
    CHECK(p.FairRateBin() == 64, "no long-lived flow: fair_rate_bin " << int(p.FairRateBin()) << ", the link's 64");
    uint64_t t = FourDelayFlows(p);
    p.ControllerTick(60 * MS);
    CHECK(p.Groups()[2].active == 4 && p.Groups()[1].active == 0,
          "four delay0 flows from the gauges, got " << p.Groups()[2].active << " / mice " << p.Groups()[1].active);
    CHECK(p.FlowsEntered(1) == 4 && p.FlowsLeft(1) == 4 && p.FlowsEntered(2) == 4, "enter / leave counted");
    CHECK(p.FairRateBin() == 54, "fair rate 25 Mbit/s: bin 54 = floor(16 log10(2500)), got " << int(p.FairRateBin()));
    std::set<uint8_t> qs;
    for (uint8_t s = 0; s < 4; ++s)
        qs.insert(p.QueueOf(2, s));
    CHECK(qs.size() == 1 && p.QueueOf(2, 0) == 2 && p.QueueOf(0, 0) == 0 && p.QueueOf(1, 3) == 1,
          "delay0's four slots on its one queue, the first after the ants' and mice' (D18)");
    // D8: a FIN and a RST close two of them: they leave delay0 now, enter nothing, and a late
    // packet of a closed flow does not bring it back, nor does the update its next interval end
    // sends (3+ packets in the 8 below: a mouse again by the ant rule, 0 on the slot)
    Pkt fin = Data(t, 0x0a000001, 100, 0x0a000101, 5201, 64);
    fin.flags = FIN | ACK;
    Pkt rst = Data(t + 10 * US, 0x0a000001, 101, 0x0a000101, 5201, 64);
    rst.flags = RST;
    for (const Pkt& k : {fin, rst})
    {
        p.Enqueue(k);
        Drain(p, k.t_ns);
    }
    for (int i = 0; i < 8; ++i)
    {
        const uint64_t ti = t + 12 * MS + i * 500 * US;
        p.Enqueue(Data(ti, 0x0a000001, 100));
        Drain(p, ti);
    }
    p.Enqueue(Data(t + 24 * MS, 0x0a000001, 100)); // ends the 8-packet interval: an update to mouse
    Drain(p, t + 24 * MS);
    CHECK(p.FlowsEntered(1) == 4, "a closed flow re-entered mouse: " << p.FlowsEntered(1));
    p.ControllerTick(80 * MS);
    CHECK(p.Groups()[2].active == 2 && p.FlowsLeft(2) == 2 && p.FlowsEntered(2) == 4,
          "FIN and RST: 2 delay0 flows left, got " << p.Groups()[2].active << " (enter " << p.FlowsEntered(2)
                                                    << ", leave " << p.FlowsLeft(2) << ")");
}

// A case written for the removed max-min step (its forwarded rates) would pass unread: refused.
void
RefuseRemovedCaseKeys(const json& c, const std::string& name)
{
    if (c.contains("sent_kbps")) // the fair rate reads no forwarded rate since D12
        throw std::invalid_argument("controller case " + name + ": sent_kbps was removed (algorithm.md D12)");
}

// testdata/controller/cases.json (format: testdata/README.md): the emulated controller's fair
// rate, fair_rate_bin, centre bin, TVF and CTV ranges against the cases the ONOS app is tested on
void
RunControllerCases(const std::string& path)
{
    g_ctx = "controller-cases";
    std::ifstream in(path);
    if (!in)
    {
        ++g_fail;
        std::cout << "controller cases: ERROR cannot open " << path << "\n";
        return;
    }
    const json doc = json::parse(in);
    const auto groupId = [](const std::string& name) {
        for (uint32_t g = 0; g < uint32_t(P::NUM_GROUPS); ++g)
            if (name == P::GROUP_NAMES[g])
                return g;
        throw std::invalid_argument("controller case: unknown group name '" + name + "'");
    };
    int run = 0;
    for (const json& c : doc.at("cases"))
    {
        const std::string name = c.at("name");
        g_ctx = "controller-case " + name;
        Config cfg = Config::Defaults();
        // weights make the port's intent weighted-groups (testdata/README.md); the model takes
        // them as the simulator's --weights text
        if (c.contains("weights"))
        {
            std::string text;
            for (const auto& [fam, v] : c.at("weights").items())
                text += (text.empty() ? "" : ",") + fam + ":" + std::to_string(v.get<double>());
            cfg.family_weights = ParseFamilyWeights(text, "controller case " + name + ": weights");
        }
        cfg.link_rate_bps = uint64_t(c.at("link_mbps").get<double>() * 1e6);
        if (c.contains("params"))
            for (const auto& [sec, kv] : c.at("params").items())
                for (const auto& [key, v] : kv.items())
                {
                    const std::string k = sec + "." + key;
                    if (k == "tvf.steps_per_decade")
                    {
                        cfg.tvf_steps_per_decade = v.get<uint32_t>();
                        // the fabric's scale bin (D22) is in bins of this d: recomputed as
                        // Config::Defaults computes it (C = floor(d log10(centre / rate_min)))
                        cfg.tvf_scale_bin = uint32_t(std::floor(
                            double(cfg.tvf_steps_per_decade) *
                                std::log10(double(P::TVF_CENTRE_KBPS) / double(cfg.tvf_min_kbps)) +
                            1e-9));
                    }
                    else if (k == "tvf.rate_steps")
                        cfg.tvf_steps = v.get<uint32_t>();
                    else if (k == "aqm.ctv_floor_bins")
                        cfg.ctv_floor_bins = v.get<int32_t>();
                    else if (k == "aqm.ctv_ceiling_bins")
                        cfg.ctv_ceiling_bins = v.get<int32_t>();
                    else if (k == "tvf.model_shift_bins")
                        cfg.model_shift_bins = v.get<int32_t>();
                    else if (k == "classifier.bdp_shift")
                        cfg.bdp_shift = v.get<uint32_t>();
                    else if (k == "queues.per_port")
                        cfg.num_queues = v.get<uint32_t>();
                    else if (k == "queues.dwrr_weights")
                        cfg.dwrr_weights = v.get<std::vector<uint32_t>>();
                    else
                        throw std::invalid_argument("controller case " + name + ": param " + k +
                                                    " has no model Config field");
                }
        // as the app's PolicyCompiler (and params' loader): the Pipeline would pad or cut the list
        if (cfg.dwrr_weights.size() != cfg.num_queues)
            throw std::invalid_argument("controller case " + name + ": queues.dwrr_weights lists " +
                                        std::to_string(cfg.dwrr_weights.size()) + " weights, queues.per_port is " +
                                        std::to_string(cfg.num_queues));
        for (uint32_t x : cfg.dwrr_weights)
            if (x < 1 || x > 1023)
                throw std::invalid_argument("controller case " + name + ": queues.dwrr_weights " + std::to_string(x) +
                                            " outside 1..1023");
        // the intent's queue_layout in the app; absent: params queues.layout (Config::Defaults)
        if (c.contains("queue_layout"))
            cfg.queue_layout = ParseQueueLayout(c.at("queue_layout").get<std::string>(),
                                                "controller case " + name + ": queue_layout");
        Pipeline p(cfg);
        std::vector<uint32_t> n(P::NUM_GROUPS, 0);
        for (const auto& [g, v] : c.at("flows").items())
            n[groupId(g)] = v.get<uint32_t>();
        // D22: the long-lived flows the rest of the fabric counts, per group (ApplyPolicy adds
        // the port's own); absent: this switch is the fabric
        if (c.contains("fabric_flows"))
        {
            std::vector<uint32_t> rest(P::NUM_GROUPS, 0);
            for (const auto& [g, v] : c.at("fabric_flows").items())
                rest[groupId(g)] = v.get<uint32_t>();
            p.SetFabricFlows(rest);
        }
        RefuseRemovedCaseKeys(c, name);
        // one round of the share correction (D13) before the policy: the state it starts from,
        // what each group forwarded over the window
        if (c.contains("correction"))
        {
            const json& k = c.at("correction");
            std::vector<double> before(P::NUM_GROUPS, 0.0), bits(P::NUM_GROUPS, 0.0);
            std::vector<uint64_t> sig(P::NUM_GROUPS, 0);
            std::vector<uint32_t> prevFlows(P::NUM_GROUPS, 0);
            for (const auto& [g, v] : k.at("before").items())
                before[groupId(g)] = v.get<double>();
            for (const auto& [g, v] : k.at("flows_before").items())
                prevFlows[groupId(g)] = v.get<uint32_t>();
            for (const auto& [g, v] : k.at("signalled").items())
                sig[groupId(g)] = v.get<uint64_t>();
            const double window = k.at("window_s").get<double>();
            for (const auto& [g, v] : k.at("forwarded_kbps").items())
                bits[groupId(g)] = v.get<double>() * 1e3 * window;
            p.SetCorrection(before, prevFlows);
            p.CorrectShares(n, bits, sig, window);
        }
        p.ApplyPolicy(n);
        const json& e = c.at("expect");
        if (e.contains("correction_bins"))
            for (const auto& [g, v] : e.at("correction_bins").items())
                CHECK(std::fabs(p.AppliedCorrection(groupId(g)) - v.get<double>()) < 1e-9,
                      g << " correction " << p.AppliedCorrection(groupId(g)) << " bins, want " << v);
        const double fairKbps = e.at("fair_kbps").get<double>();
        // fair_kbps 0 = no long-lived flow: the model's fair rate is then the link (README)
        if (fairKbps > 0)
            CHECK(std::fabs(double(p.FairRateBps()) / 1e3 - fairKbps) < 1,
                  "fair rate " << p.FairRateBps() / 1e3 << " kbit/s, want " << fairKbps);
        CHECK(p.FairRateBin() == e.at("fair_rate_bin").get<int>(),
              "fair_rate_bin " << int(p.FairRateBin()) << ", want " << e.at("fair_rate_bin"));
        CHECK(p.CentreBin() == e.at("centre_bin").get<uint32_t>(),
              "centre bin " << p.CentreBin() << ", want " << e.at("centre_bin"));
        const auto bins = e.at("tvf_bins").get<std::vector<uint32_t>>();
        for (const auto& [g, pvs] : e.at("tvf").items())
            for (size_t i = 0; i < bins.size(); ++i)
                CHECK(p.Tvf(uint8_t(groupId(g)), bins[i]) == pvs.at(i).get<uint16_t>(),
                      g << " TVF at bin " << bins[i] << ": " << p.Tvf(uint8_t(groupId(g)), bins[i]) << ", want "
                        << pvs.at(i));
        for (const auto& [g, r] : e.at("ctv").items())
        {
            const QueueState& q = p.Queues()[p.QueueOf(uint8_t(groupId(g)), 0)];
            CHECK(q.ctv_lo == r.at(0).get<uint16_t>() && q.ctv_hi == r.at(1).get<uint16_t>(),
                  g << " CTV range [" << q.ctv_lo << ", " << q.ctv_hi << "], want " << r);
        }
        if (e.contains("queues"))
            for (const auto& [g, qs] : e.at("queues").items())
                for (size_t s = 0; s < qs.size(); ++s)
                    CHECK(p.QueueOf(uint8_t(groupId(g)), uint8_t(s)) == qs.at(s).get<int>(),
                          g << " slot " << s << ": queue " << int(p.QueueOf(uint8_t(groupId(g)), uint8_t(s)))
                            << ", want " << qs.at(s));
        // D19: port_cfg family_forget
        CHECK(p.FamilyForget() == e.at("family_forget").get<int>(),
              "family_forget " << int(p.FamilyForget()) << ", want " << e.at("family_forget"));
        // expect[key]: per listed group, the value of the queue its slot 0 maps to;
        // expect[key_other]: that of every other queue
        const auto perQueue = [&](const std::string& key, const char* unit, const auto& got) {
            std::set<uint32_t> named;
            if (e.contains(key))
                for (const auto& [g, v] : e.at(key).items())
                {
                    const uint32_t qi = p.QueueOf(uint8_t(groupId(g)), 0);
                    named.insert(qi);
                    CHECK(got(qi) == v.template get<uint32_t>(), key << ": " << g << " queue " << qi << " " << got(qi) << " " << unit << ", want " << v);
                }
            if (e.contains(key + "_other"))
                for (uint32_t qi = 0; qi < uint32_t(p.Queues().size()); ++qi)
                    if (!named.count(qi))
                        CHECK(got(qi) == e.at(key + "_other").template get<uint32_t>(),
                              key << "_other: queue " << qi << " " << got(qi) << " " << unit << ", want " << e.at(key + "_other"));
        };
        // D19: each queue's aqm_cfg target (0 in the model: the port's)
        perQueue("target_us", "us", [&](uint32_t qi) {
            const uint32_t t = p.Queues()[qi].target_units;
            return t ? t : cfg.target_delay_units;
        });
        // D21: the first policy's buffer limit per queue (Cocoa's initial limit, or a delay
        // group's own queue's floor when above it)
        perQueue("limit_pkts", "pkts", [&](uint32_t qi) { return p.Queues()[qi].limit; });
        if (e.contains("queues_used"))
        {
            std::set<uint8_t> used;
            for (uint32_t g = 0; g < uint32_t(P::NUM_GROUPS); ++g)
                for (uint8_t s = 0; s < Pipeline::kSlots; ++s)
                    used.insert(p.QueueOf(uint8_t(g), s));
            CHECK(used.size() == e.at("queues_used").get<size_t>(),
                  "queues used " << used.size() << ", want " << e.at("queues_used"));
        }
        ++run;
    }
    g_ctx = "controller-cases";
    CHECK(run > 0, "no controller case run from " << path);
    std::cout << "controller cases: " << run << " run\n";
}

// Row 33: one CTV step per aligned 2^20 ns period
void
TestAqm()
{
    g_ctx = "aqm";
    Config c = Config::Defaults();
    c.ecn = false;
    Pipeline p(c);
    p.SetQueueCtvRange(0, 0, 0xFFFF);
    p.SetQueueCtv(0, 30000);
    for (int i = 0; i < 3; ++i)
    {
        Pkt u = Data(0, 0x0a000009, 9, 0x0a000101, 53, 100);
        u.tcp = false;
        p.Enqueue(u);
    }
    // period k = [k, k+1) x 2^20 ns: 10.49 ms and 11.5 ms are in period 10, 12.0 ms in period 11
    p.Dequeue(11010048);
    DeqResult b = p.Dequeue(11500000);
    DeqResult d = p.Dequeue(12000000);
    CHECK(b.ctv == 30000 + c.ctv_step_up && d.ctv == 30000 + 2 * c.ctv_step_up && c.ctv_step_up == 16,
          "one step (16) per aligned period (the old model: >= 1 ms apart): "
                                                << b.ctv << " " << d.ctv);
}

void
TestNs3Adapter()
{
    g_ctx = "ns3-adapter";
    using namespace ns3;
    ObjectFactory f;
    f.SetTypeId("ns3::CcfairQueueDisc");
    f.Set("LinkRate", DataRateValue(DataRate("20Mbps")));
    Ptr<CcfairQueueDisc> q = f.Create<CcfairQueueDisc>();
    q->Initialize();
    int changes = 0;
    q->TraceConnectWithoutContext(
        "GroupChange",
        MakeBoundCallback(
            +[](int* n, Ipv4Address, uint16_t, Ipv4Address, uint16_t, uint8_t o, uint8_t nw) {
                if (o != nw)
                    ++*n;
            },
            &changes));
    Ipv4Header h;
    h.SetSource(Ipv4Address("10.0.0.1"));
    h.SetDestination(Ipv4Address("10.0.1.1"));
    h.SetProtocol(6);
    TcpHeader t;
    t.SetSourcePort(40000);
    t.SetDestinationPort(5201);
    t.SetFlags(TcpHeader::SYN);
    Ptr<Packet> pk = Create<Packet>(0);
    pk->AddHeader(t);
    h.SetPayloadSize(pk->GetSize());
    Ptr<Ipv4QueueDiscItem> item = Create<Ipv4QueueDiscItem>(pk, Address(), 0x0800, h);
    CHECK(q->Enqueue(item), "SYN enqueued");
    CHECK(q->GetFlowGroup(Ipv4Address("10.0.0.1"), 40000, Ipv4Address("10.0.1.1"), 5201) == P::GROUP_MOUSE,
          "a SYN makes a mouse");
    CHECK(q->GetFlowGroup(Ipv4Address("10.0.1.1"), 5201, Ipv4Address("10.0.0.1"), 40000) == P::GROUP_MOUSE,
          "symmetric lookup");
    CHECK(q->GetFlowGroup(Ipv4Address("10.0.0.9"), 1, Ipv4Address("10.0.1.1"), 5201) == -1, "untracked -> -1");
    CHECK(changes == 1, "GroupChange fired once for the new flow");
    CHECK(q->Dequeue() != nullptr, "and dequeued");
    json s = json::parse(q->GetStatsJson());
    CHECK(s["groups"].size() == size_t(P::NUM_GROUPS) && s["queues"].size() == size_t(P::QUEUES_PER_PORT),
          "stats JSON has every group and queue");
    CHECK(q->GetPipeline().Cfg().queue_layout == ccfair::QueueLayout::Shared &&
              q->GetPipeline().QueueOf(P::GROUP_LOSS_BASE, 3) == 2,
          "no QueueLayout attribute: params queues.layout (shared), long-lived groups on queue 2");
    q->Dispose();
    // A scenario's queue_layout reaches the emulated controller through the attribute.
    f.Set("QueueLayout", StringValue("isolated"));
    Ptr<CcfairQueueDisc> iso = f.Create<CcfairQueueDisc>();
    iso->Initialize();
    CHECK(iso->GetPipeline().Cfg().queue_layout == ccfair::QueueLayout::Isolated &&
              iso->GetPipeline().QueueOf(P::GROUP_LOSS_BASE, 0) != iso->GetPipeline().QueueOf(P::GROUP_DELAY_BASE, 0),
          "QueueLayout isolated: per-group queues");
    iso->Dispose();
    // A scenario's intent reaches it through Weights: loss weighs 3, so its curve is shifted
    // by 16 log10(3) bins against delay's (no flow yet: the ranges read at the link's bin)
    f.Set("QueueLayout", StringValue(""));
    f.Set("Weights", StringValue("loss:3"));
    Ptr<CcfairQueueDisc> wq = f.Create<CcfairQueueDisc>();
    wq->Initialize();
    const ccfair::Pipeline& wp = wq->GetPipeline();
    CHECK(wp.Cfg().family_weights == std::vector<double>({1, 3, 1}) &&
              wp.Tvf(P::GROUP_LOSS_BASE, wp.CentreBin()) > wp.Tvf(P::GROUP_DELAY_BASE, wp.CentreBin()),
          "Weights loss:3: the loss curves lie above the delay ones at the centre");
    wq->Dispose();
    Simulator::Destroy();
}

// ---------------------------------------------------------------- test vectors

struct VectorError : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

int
GroupByName(const std::string& n)
{
    if (n == "untracked")
        return -1;
    for (int g = 0; g < int(P::NUM_GROUPS); ++g)
        if (n == P::GROUP_NAMES[g])
            return g;
    throw VectorError("unknown group name '" + n + "'");
}

void
AllowedKeys(const json& j, const std::set<std::string>& keys, const std::string& where)
{
    if (!j.is_object())
        throw VectorError(where + " must be an object");
    for (auto& [k, v] : j.items())
        if (!keys.count(k))
            throw VectorError(where + ": unknown key '" + k + "'");
}

bool
InRange(const json& r, double v)
{
    return v >= r.at(0).get<double>() && v <= r.at(1).get<double>();
}

uint32_t
Ip(const std::string& s)
{
    in_addr a;
    if (inet_pton(AF_INET, s.c_str(), &a) != 1)
        throw VectorError("bad IPv4 address '" + s + "'");
    return ntohl(a.s_addr);
}

struct FlowDef
{
    uint32_t src, dst;
    uint16_t sport, dport;
};

// Microseconds of a vector as the data plane's 1.024 us units (as the PTF replay writes them).
uint32_t
Units(double us)
{
    return uint32_t(std::lround(us * 1000.0 / 1024.0));
}

const char*
ActionName(Action a)
{
    return a == Action::FORWARD ? "forward" : a == Action::MARK ? "mark" : "drop";
}

// A packet's fate: its verdict and PV are decided in egress, so a packet step's
// "verdict" and "pv" expectations wait for the packet to leave (drained, a dequeue
// step, or the end of the vector).
struct Pending
{
    std::string at;
    json expect;
};

void
RunVector(const std::string& path)
{
    std::ifstream in(path);
    json v = json::parse(in);
    AllowedKeys(v, {"name", "description", "config", "flows", "steps"}, "vector");
    const std::string name = v.at("name");
    g_ctx = "vector " + name;
    const int fail0 = g_fail, pass0 = g_pass;

    Config c = Config::Defaults();
    const json cfg = v.value("config", json::object());
    AllowedKeys(cfg,
                {"link_rate_bps", "fair_rate_bps", "default_rtt_us", "ant_max_pkts_per_interval", "m_m", "target_delay_us", "ctv_update_interval_us", "ctv_step_up", "ctv_step_down",
                 "ecn", "num_queues", "initial_limit_pkts", "rtt_boundary_us", "ss_proactive_drop",
                 "min_interval_us", "family_forget"},
                "config");
    c.link_rate_bps = cfg.value("link_rate_bps", c.link_rate_bps);
    if (cfg.contains("default_rtt_us"))
        c.default_rtt_units = Units(cfg["default_rtt_us"].get<double>());
    // the interval floor W (flow.min_interval_us, compiled into the program): a vector states it in
    // its own time; the PTF replay makes it true through its time scale (ptf-tests/lib/vectors.py)
    if (cfg.contains("min_interval_us"))
        c.interval_min_units = Units(cfg["min_interval_us"].get<double>());
    c.ant_max_pkts = cfg.value("ant_max_pkts_per_interval", c.ant_max_pkts);
    c.m_m = cfg.value("m_m", c.m_m);
    if (cfg.contains("target_delay_us"))
        c.target_delay_units = Units(cfg["target_delay_us"].get<double>());
    if (cfg.contains("ctv_update_interval_us"))
        c.ctv_period_shift = uint32_t(std::ceil(std::log2(cfg["ctv_update_interval_us"].get<double>() * 1000.0)));
    c.ctv_step_up = cfg.value("ctv_step_up", c.ctv_step_up);
    c.ctv_step_down = cfg.value("ctv_step_down", c.ctv_step_down);
    c.ecn = cfg.value("ecn", c.ecn);
    c.num_queues = cfg.value("num_queues", c.num_queues);
    c.cocoa_initial = cfg.value("initial_limit_pkts", c.cocoa_initial);
    c.ss_proactive_drop = cfg.value("ss_proactive_drop", c.ss_proactive_drop);
    if (cfg.contains("rtt_boundary_us"))
        c.rtt_boundary_units = Units(cfg["rtt_boundary_us"].get<double>());
    Pipeline p(c, 12345);
    if (cfg.contains("fair_rate_bps"))
        p.SetFairRate(cfg["fair_rate_bps"].get<uint64_t>());
    else
        p.SetPortFairRateBin(255); // as PTF's replay: the table default, not the model's link bin (D7)
    // port_cfg family_forget as PTF's replay writes it (the controller's rule is not run here)
    p.SetFamilyForget(cfg.value("family_forget", false));

    std::map<std::string, FlowDef> flows;
    for (auto& [k, f] : v.at("flows").items())
    {
        AllowedKeys(f, {"src", "sport", "dst", "dport"}, "flow " + k);
        flows[k] = {Ip(f.at("src")), Ip(f.at("dst")), f.at("sport").get<uint16_t>(), f.at("dport").get<uint16_t>()};
    }
    auto flowOf = [&](const json& s) -> const FlowDef& {
        auto it = flows.find(s.at("flow").get<std::string>());
        if (it == flows.end())
            throw VectorError("step names unknown flow");
        return it->second;
    };

    std::map<uint64_t, Pending> pending; // packet id -> verdict / pv expectations
    auto resolve = [&](uint64_t id, const char* verdict, uint16_t pv, bool hasPv) {
        auto it = pending.find(id);
        if (it == pending.end())
            return;
        const json& e = it->second.expect;
        if (e.contains("verdict"))
            CHECK(e["verdict"] == verdict, it->second.at << ": verdict " << verdict << ", expected " << e["verdict"]);
        if (e.contains("pv"))
            CHECK(hasPv && InRange(e["pv"], pv), it->second.at << ": pv " << pv << " not in " << e["pv"]);
        pending.erase(it);
    };
    auto verdictOf = [](Action a) {
        return a == Action::DROP_LIMIT ? "drop_limit" : a == Action::DROP_PROACTIVE ? "drop_proactive"
                                       : a == Action::DROP_PV                       ? "drop_pv"
                                                                                    : "enqueued";
    };
    auto dequeue = [&](uint64_t t) {
        DeqResult r = p.Dequeue(t);
        if (r.valid)
            resolve(r.id, verdictOf(r.action), r.pv, true);
        return r;
    };

    // TCP sequence numbers, the rule of ptf-tests/lib/vectors.py (_sequence_numbers), per flow and
    // direction in time order: a SYN carries ISN 0 (without ACK it starts both directions anew); a
    // direction's first segment after it, or mid-connection, has seq 1; a segment advances its
    // direction by its payload, a FIN by one more; "retx": true re-sends the direction's last
    // segment with payload. seqOf[{step, i}] is packet i of packet step `step`.
    std::map<std::pair<int, int>, uint32_t> seqOf;
    {
        struct Tx
        {
            uint64_t t;
            int k, step, i;
            std::string key, flow;
            bool rev, syn, ack, fin, retx;
            uint32_t payload;
        };
        std::vector<Tx> txs;
        int st = 0;
        for (const json& s : v.at("steps"))
        {
            ++st;
            if (s.value("op", "packet") != "packet" || s.value("proto", "tcp") != "tcp")
                continue;
            const std::string fl = s.at("flow").get<std::string>(), flags = s.value("flags", std::string("A"));
            const bool rev = s.value("dir", "fwd") == "rev";
            for (int i = 0; i < s.value("repeat", 1); ++i)
                txs.push_back({s.at("t_us").get<uint64_t>() + s.value("every_us", 0ULL) * i, int(txs.size()), st, i,
                               fl + (rev ? "/rev" : "/fwd"), fl, rev, flags.find('S') != std::string::npos,
                               flags.find('A') != std::string::npos, flags.find('F') != std::string::npos,
                               s.value("retx", false), s.value("payload", 0u)});
        }
        std::stable_sort(txs.begin(), txs.end(), [](const Tx& a, const Tx& b) { return a.t < b.t; });
        std::map<std::string, uint32_t> next;
        std::map<std::string, int64_t> last; // -1: none
        for (const Tx& x : txs)
        {
            const std::string where = "step " + std::to_string(x.step);
            if (x.syn)
            {
                if (x.retx)
                    throw VectorError(where + ": a SYN cannot be a retransmission");
                for (const std::string& e : x.ack ? std::vector<std::string>{x.key}
                                                  : std::vector<std::string>{x.flow + "/fwd", x.flow + "/rev"})
                    next[e] = 1, last[e] = -1;
                seqOf[{x.step, x.i}] = 0;
            }
            else if (x.retx)
            {
                if (!last.count(x.key) || last[x.key] < 0)
                    throw VectorError(where + ": retx, but " + x.key + " sent no segment with payload before");
                seqOf[{x.step, x.i}] = uint32_t(last[x.key]);
            }
            else
            {
                const uint32_t q = next.count(x.key) ? next[x.key] : 1;
                seqOf[{x.step, x.i}] = q;
                if (x.payload)
                    last[x.key] = q;
                next[x.key] = q + x.payload + (x.fin ? 1 : 0);
            }
        }
    }
    int stepNo = 0;
    uint64_t tEnd = 0;
    for (const json& s : v.at("steps"))
    {
        ++stepNo;
        const std::string op = s.value("op", "packet");
        const std::string where = "step " + std::to_string(stepNo) + " (" + op + ")";
        const uint64_t t0 = s.at("t_us").get<uint64_t>() * US;
        tEnd = std::max(tEnd, t0);
        if (op == "packet")
        {
            AllowedKeys(s,
                        {"op", "t_us", "flow", "dir", "proto", "flags", "size", "payload", "ect", "u16", "repeat",
                         "every_us", "drain", "expect", "expect_last", "note", "retx"},
                        where);
            const FlowDef& f = flowOf(s);
            const bool rev = s.value("dir", "fwd") == "rev";
            const int n = s.value("repeat", 1);
            const uint64_t every = s.value("every_us", 0ULL) * US;
            for (int i = 0; i < n; ++i)
            {
                Pkt pk;
                pk.t_ns = t0 + every * i;
                tEnd = std::max(tEnd, pk.t_ns);
                pk.src = rev ? f.dst : f.src;
                pk.dst = rev ? f.src : f.dst;
                pk.sport = rev ? f.dport : f.sport;
                pk.dport = rev ? f.sport : f.dport;
                pk.tcp = s.value("proto", "tcp") == "tcp";
                for (char ch : s.value("flags", std::string("A")))
                    pk.flags |= ch == 'F' ? FIN : ch == 'S' ? SYN : ch == 'R' ? RST : ch == 'P' ? PSH
                                : ch == 'A' ? ACK : throw VectorError(where + ": bad flag");
                pk.size = s.at("size");
                pk.payload = s.value("payload", 0u);
                pk.ect = s.value("ect", false);
                pk.rand16 = s.value("u16", 0);
                if (pk.tcp)
                    pk.seq = seqOf.at({stepNo, i});
                EnqResult r = p.Enqueue(pk);
                const std::string at = where + " packet " + std::to_string(i + 1) + "/" + std::to_string(n);
                json fate = json::object();
                for (const char* key : {"expect", "expect_last"})
                {
                    if (!s.contains(key) || (std::string(key) == "expect_last" && i != n - 1))
                        continue;
                    const json& e = s[key];
                    AllowedKeys(e, {"verdict", "group", "pv", "queue"}, where + " " + key);
                    for (const char* k : {"verdict", "pv"})
                        if (e.contains(k))
                            fate[k] = e[k];
                    if (e.contains("queue"))
                        CHECK(r.queue == e["queue"].get<int>(), at << ": queue " << int(r.queue));
                }
                if (!fate.empty())
                {
                    if (r.verdict == Verdict::DROP_BUFFER)
                    {
                        pending[r.id] = {at, fate};
                        resolve(r.id, "drop_limit", 0, false);
                    }
                    else
                        pending[r.id] = {at, fate};
                }
                if (s.value("drain", false))
                    while (dequeue(pk.t_ns).valid)
                    {
                    }
                for (const char* key : {"expect", "expect_last"})
                {
                    if (!s.contains(key) || (std::string(key) == "expect_last" && i != n - 1) || !s[key].contains("group"))
                        continue;
                    const int g = p.GroupOf(f.src, f.sport, f.dst, f.dport);
                    CHECK(g == GroupByName(s[key]["group"]), at << ": group " << (g < 0 ? "untracked" : P::GROUP_NAMES[g])
                                                                << ", expected " << s[key]["group"]);
                }
            }
        }
        else if (op == "dequeue")
        {
            AllowedKeys(s, {"op", "t_us", "count", "expect", "note"}, where);
            std::vector<std::string> acts;
            DeqResult last;
            const bool all = s.at("count").is_string();
            if (all && s["count"] != "all")
                throw VectorError(where + ": count is a number or \"all\"");
            const int n = all ? INT32_MAX : s["count"].get<int>();
            for (int i = 0; i < n; ++i)
            {
                DeqResult r = dequeue(t0);
                if (!r.valid)
                    break;
                last = r;
                acts.push_back(ActionName(r.action));
            }
            const json e = s.value("expect", json::object());
            AllowedKeys(e, {"actions", "count", "ctv", "sojourn_us"}, where + " expect");
            if (e.contains("actions"))
                CHECK(json(acts) == e["actions"], where << ": actions " << json(acts).dump());
            if (e.contains("count"))
                CHECK(int(acts.size()) == e["count"].get<int>(), where << ": dequeued " << acts.size());
            if (e.contains("ctv"))
                CHECK(InRange(e["ctv"], last.ctv), where << ": ctv " << last.ctv << " not in " << e["ctv"]);
            if (e.contains("sojourn_us"))
                CHECK(InRange(e["sojourn_us"], last.sojourn_ns / 1000.0), where << ": sojourn " << last.sojourn_ns);
        }
        else if (op == "tick")
        {
            AllowedKeys(s, {"op", "t_us", "note"}, where);
            p.ControllerTick(t0);
        }
        else if (op == "set")
        {
            AllowedKeys(s, {"op", "t_us", "queue", "ctv", "ctv_lo", "ctv_hi", "fair_rate_bps", "note"}, where);
            if (s.contains("fair_rate_bps"))
                p.SetFairRate(s["fair_rate_bps"].get<uint64_t>());
            if (s.contains("queue"))
            {
                std::vector<int> qs;
                if (s["queue"] == "all")
                    for (uint32_t q = 0; q < c.num_queues; ++q)
                        qs.push_back(int(q));
                else
                    qs.push_back(s["queue"].get<int>());
                for (int q : qs)
                {
                    const QueueState& qs_ = p.Queues()[q];
                    p.SetQueueCtvRange(uint8_t(q), s.value("ctv_lo", qs_.ctv_lo), s.value("ctv_hi", qs_.ctv_hi));
                    if (s.contains("ctv"))
                        p.SetQueueCtv(uint8_t(q), s["ctv"].get<uint16_t>());
                }
            }
        }
        else if (op == "check")
        {
            AllowedKeys(s, {"op", "t_us", "flow", "dir", "expect", "note"}, where);
            const FlowDef& f = flowOf(s);
            const bool rev = s.value("dir", "fwd") == "rev";
            FlowRegs fl;
            const bool have = rev ? p.ReadFlow(f.dst, f.dport, f.src, f.sport, fl) : p.ReadFlow(f.src, f.sport, f.dst, f.dport, fl);
            const json& e = s.at("expect");
            AllowedKeys(e, {"group", "rtt_us", "interval_pkts", "family", "ignore", "queue_ctv"}, where + " expect");
            if (e.contains("group"))
            {
                int g = have ? int(fl.group) : -1;
                CHECK(g == GroupByName(e["group"]),
                      where << ": group " << (g < 0 ? "untracked" : P::GROUP_NAMES[g]) << ", expected " << e["group"]);
            }
            if (!have)
            {
                CHECK(!e.contains("rtt_us") && !e.contains("interval_pkts"), where << ": flow not tracked");
                continue;
            }
            if (e.contains("rtt_us"))
            {
                // the RTT in effect (rtt_fix), in us; +-0.5 % for the unit rounding of a configured RTT
                const double us = fl.rtt_units * 1.024;
                const json& r = e["rtt_us"];
                CHECK(us >= r.at(0).get<double>() * 0.995 && us <= r.at(1).get<double>() * 1.005,
                      where << ": rtt " << us << " us not in " << r);
            }
            if (e.contains("interval_pkts"))
                CHECK(fl.flow_pkts == e["interval_pkts"].get<uint32_t>(), where << ": interval pkts " << fl.flow_pkts);
            if (e.contains("family"))
                CHECK(fl.family == e["family"].get<uint32_t>(), where << ": family " << int(fl.family));
            if (e.contains("ignore"))
                CHECK(fl.ignore == e["ignore"].get<uint32_t>(), where << ": ignore " << int(fl.ignore));
            if (e.contains("queue_ctv"))
            {
                const json& qc = e["queue_ctv"];
                uint16_t ctv = p.Queues()[qc.at("queue").get<int>()].q_ctv;
                CHECK(InRange(qc.at("range"), ctv), where << ": ctv " << ctv);
            }
        }
        else
            throw VectorError(where + ": unknown op");
    }
    // packets still queued leave at the end (as the PTF replay releases them)
    while (dequeue(tEnd).valid)
    {
    }
    for (auto& [id, pe] : pending)
        CHECK(false, pe.at << ": never left the switch");
    const int checks = g_pass + g_fail - pass0 - fail0;
    std::cout << "vector " << name << ": " << (g_fail == fail0 ? "ok" : "FAILED") << " (" << checks
              << " checks)\n";
}

} // namespace


// Rows 30-32: the model's TVF curve, looked up at whole bins as the program's tvf table
void
TestTvf()
{
    g_ctx = "tvf";
    Pipeline p;
    p.SetFairRate(10000000); // 10^4 kbit/s: bin 48, where the CTV ranges are read (CentreBin)
    const Config& c = p.Cfg();
    // the fabric's one scale (D22): pv_max/2 at tvf.centre_kbps's bin 64 whatever the fair rate,
    // (pv_max + 1) / 128 = 512 PV a bin, pv_max four decades below, 0 four decades above
    CHECK(c.tvf_scale_bin == 64 && p.CentreBin() == 48, "scale bin " << c.tvf_scale_bin << ", centre " << p.CentreBin());
    CHECK(p.Tvf(2, 64) == c.pv_max / 2 && p.Tvf(2, 0) == c.pv_max && p.Tvf(2, 128) == 0 &&
              p.Tvf(2, 48) == c.pv_max / 2 + 16 * 512 && p.Tvf(2, 49) == p.Tvf(2, 48) - 512,
          "pv_max/2 at bin 64, pv_max four decades below, 0 four above: " << p.Tvf(2, 0) << " " << p.Tvf(2, 48) << " "
                                                                        << p.Tvf(2, 64) << " " << p.Tvf(2, 128));
    // lr_pv 197 fine units (12 Mbit/s): u ~ 1 -> nlog_u 0 -> pos 197 -> bin 49; every u in that bin's
    // 4 fine units gives the same PV (the old model interpolated 16 sub-steps per bin)
    CHECK(p.TvfPv(2, 197, 65535) == p.Tvf(2, 49), "u ~ 1: the bin of the rate itself");
    CHECK(p.TvfPv(2, 196, 65535) == p.TvfPv(2, 197, 65535), "within a bin the PV is constant");
    CHECK(p.TvfPv(2, 0, 65535) == p.Tvf(2, 0), "no rate yet (lr_pv 0): bin 0");
    CHECK(p.TvfPv(2, 197, 0) == p.Tvf(2, 0), "u = 0: nlog_u 0xFFFF, bin 0");
}

// Row 34: the Cocoa limit is an egress drop by cells, enq_qdepth > limit_cells
void
TestCocoa()
{
    g_ctx = "cocoa";
    Config c = Config::Defaults();
    c.cocoa_initial = 10; // 190 cells
    auto udp = [](uint64_t t) {
        Pkt u = Data(t, 0x0a000009, 9, 0x0a000101, 53, 1500);
        u.tcp = false;
        return u;
    };
    Pipeline p(c);
    for (int i = 0; i < 12; ++i)
        CHECK(p.Enqueue(udp(0)).verdict == Verdict::ENQUEUED, "the TM queues every packet");
    std::vector<std::string> acts;
    for (DeqResult r = p.Dequeue(1 * MS); r.valid; r = p.Dequeue(1 * MS))
        acts.push_back(r.action == Action::DROP_LIMIT ? "limit" : "fwd");
    // packet 11 finds 10 x 19 = 190 cells (not more than the limit), packet 12 finds 209
    CHECK(acts.size() == 12 && acts[10] == "fwd" && acts[11] == "limit", "only the 12th is over the limit");
    CHECK(p.Queues()[0].q_limit_drops == 1, "q_limit_drops counted once");
}

// D21: in the isolated layout a delay group's own queue keeps delay_target_pkts a flow of Cocoa's
// limit: its standing queue (a delay-based flow's alpha..beta segments) is what the queue's raised
// target keeps, not excess buffer. Four delay0 flows: floor 4 x 6 = 24; a standing queue of 40
// packets from 0.1 s shrinks the limit at the guard intervals' ends (1 s apart; the first saw
// the empty queue) 100 -> 100 -> 60 -> 24 and no further (cocoa_min 16 without the floor).
void
TestCocoaDelayFloor(bool isolated)
{
    g_ctx = isolated ? "cocoa delay floor (isolated)" : "cocoa delay floor (shared)";
    Config c = TenMsConfig();
    c.queue_layout = isolated ? QueueLayout::Isolated : QueueLayout::Shared;
    c.cocoa_initial = 100;
    Pipeline p(c);
    uint64_t t = FourDelayFlows(p);
    p.ControllerTick(60 * MS);
    CHECK(p.Groups()[2].active == 4, "four delay0 flows, got " << p.Groups()[2].active);
    const uint8_t q = p.QueueOf(2, 0);
    const uint32_t want = isolated ? 4 * c.delay_target_pkts : 0;
    CHECK(p.Queues()[q].limit_floor == want,
          "delay0's queue " << int(q) << ": floor " << p.Queues()[q].limit_floor << ", want " << want);
    CHECK(p.Queues()[p.QueueOf(0, 0)].limit_floor == 0, "the ants' queue has no floor");
    // a standing queue of 40 packets for 4.5 s, one in one out every millisecond
    const auto stand = [&](int ms) {
        for (int k = 0; k < ms; ++k)
        {
            t += 1 * MS;
            p.Enqueue(Data(t, 0x0a000001, uint16_t(100 + k % 4)));
            p.Dequeue(t);
        }
    };
    t = 100 * MS;
    for (int i = 0; i < 40; ++i)
        p.Enqueue(Data(t, 0x0a000001, uint16_t(100 + i % 4)));
    stand(4500);
    const uint32_t lim = p.Queues()[q].limit;
    if (isolated)
        CHECK(lim == 4 * c.delay_target_pkts, "the limit stops at the floor: " << lim << ", want 24");
    else
        CHECK(lim == c.cocoa_min, "shared: the limit shrinks to cocoa_min: " << lim << ", want " << c.cocoa_min);
    if (!isolated)
        return;
    // a policy without delay0's flows takes the floor away: the next shrinks go on to cocoa_min
    p.ApplyPolicy(std::vector<uint32_t>(P::NUM_GROUPS, 0));
    CHECK(p.Queues()[q].limit_floor == 0, "no flow, no floor: " << p.Queues()[q].limit_floor);
    stand(3000);
    CHECK(p.Queues()[q].limit == c.cocoa_min, "without the floor: " << p.Queues()[q].limit << ", want " << c.cocoa_min);
}

// Model-only diagnostics: every verdict is counted once, on the flow it hit, and nothing else is.
void
TestDiag()
{
    g_ctx = "diag";
    auto udp = [](uint64_t t, uint16_t sport) {
        Pkt u = Data(t, 0x0a000009, sport, 0x0a000101, 53, 1500);
        u.tcp = false;
        return u;
    };
    // below every limit: packets counted, no drop, no mark
    {
        Pipeline p;
        for (int i = 0; i < 5; ++i)
            p.Enqueue(Data(i * 100 * US));
        Drain(p, 1 * MS);
        const Diag& d = p.Diagnostics();
        CHECK(d.flows.size() == 1, "one flow, got " << d.flows.size());
        const FlowDiag& f = d.flows.begin()->second;
        CHECK(f.pkts == 5 && f.pkts_mouse == 5 && f.pv + f.limit + f.buffer + f.ss + f.marks == 0,
              "no drop: pkts " << f.pkts << " mouse " << f.pkts_mouse << " pv " << f.pv << " limit " << f.limit
                               << " buffer " << f.buffer << " ss " << f.ss);
        CHECK(f.src == 0x0a000001 && f.sport == 40000 && f.dport == 5201, "the flow's tuple");
        uint64_t deq = 0;
        for (const QueueDiag& q : d.queues)
            deq += q.pkts;
        CHECK(deq == 5, "every dequeued packet seen by its queue: " << deq);
        CHECK(p.RstarSamples() == 0 && p.RstarOverFair(0.5) == 0.0, "no fair rate without a long-lived flow: no R*");
    }
    // shared-buffer drops (before enqueue) and Cocoa limit drops (egress), by flow
    {
        Config c = Config::Defaults();
        c.cocoa_initial = 10;
        c.buffer_pkts = 12;
        Pipeline p(c);
        int buf = 0, limit = 0;
        for (int i = 0; i < 14; ++i)
            buf += p.Enqueue(udp(0, uint16_t(9 + (i & 1)))).verdict == Verdict::DROP_BUFFER;
        for (DeqResult r = p.Dequeue(1 * MS); r.valid; r = p.Dequeue(1 * MS))
            limit += r.action == Action::DROP_LIMIT;
        uint64_t fb = 0, fl = 0, other = 0;
        for (const auto& [k, f] : p.Diagnostics().flows)
            fb += f.buffer, fl += f.limit, other += f.pv + f.ss + f.marks;
        CHECK(buf == 2 && limit == 1, "the scenario drops 2 at the buffer, 1 at the limit: " << buf << " " << limit);
        CHECK(fb == uint64_t(buf) && fl == uint64_t(limit) && other == 0,
              "per-flow buffer " << fb << " limit " << fl << " other " << other);
        CHECK(p.Diagnostics().flows.size() == 2, "two flows (sport 9 and 10)");
        p.ResetDiag();
        uint64_t left = 0;
        for (const auto& [k, f] : p.Diagnostics().flows)
            left += f.pkts + f.buffer + f.limit;
        CHECK(left == 0 && p.Diagnostics().flows.size() == 2, "ResetDiag zeroes the counts, keeps the flows");
    }
    // PV drops against a CTV pinned at one value, and R* of that CTV against the fair rate
    {
        Config c = Config::Defaults();
        c.ecn = false;
        Pipeline p(c);
        p.SetFairRate(10000000); // 10^4 kbit/s: the lower edge of bin 48 (TestTvf)
        const int k = 3;
        const uint16_t ctv = p.Tvf(2, 48 + k);
        for (uint8_t q = 0; q < c.num_queues; ++q)
        {
            p.SetQueueCtvRange(q, ctv, ctv);
            p.SetQueueCtv(q, ctv);
        }
        uint64_t pv = 0, n = 0;
        for (int i = 0; i < 200; ++i)
        {
            p.Enqueue(udp(i * 10 * US, 9)); // untracked: lr_pv 0 -> PV of bin 0 = pv_max > CTV
            p.Enqueue(Data(i * 10 * US, 0x0a000001, uint16_t(40000 + i))); // new flows: PV from their rate
            for (DeqResult r = p.Dequeue(i * 10 * US); r.valid; r = p.Dequeue(i * 10 * US))
            {
                pv += r.action == Action::DROP_PV;
                ++n;
            }
        }
        uint64_t fpv = 0, edge = 0, qp = 0;
        for (const auto& [key, f] : p.Diagnostics().flows)
            fpv += f.pv;
        for (const QueueDiag& q : p.Diagnostics().queues)
            edge += q.at_edge, qp += q.pkts;
        CHECK(fpv == pv, "per-flow PV drops " << fpv << " = the verdicts " << pv);
        CHECK(qp == n && edge == n, "every packet met the CTV at its (one-point) range: " << edge << " of " << n);
        // R* = TVF^-1(CTV) + 1 bin = the lower edge of bin 48 + k + 1
        const double want = std::pow(10.0, double(48 + k + 1) / c.tvf_steps_per_decade) * c.tvf_min_kbps / 1e4;
        CHECK(p.RstarSamples() == n, "an R* sample per dequeued packet: " << p.RstarSamples());
        CHECK(std::abs(p.RstarOverFair(0.5) / want - 1) < 0.015 && std::abs(p.RstarOverFair(0.1) / want - 1) < 0.015,
              "R*/fair " << p.RstarOverFair(0.5) << ", expected " << want);
    }
    // every packet below the CTV in a standing queue (sojourn 3 ms: << pv_gate_shift 1 = 6 ms >= the
    // 5 ms target) is dropped, tracked or not (no per-flow token), and counted once per flow and queue
    // (the slow-start end's proactive drop is off: every drop here is the AQM's)
    {
        Config c = Config::Defaults();
        c.ecn = false;
        c.ss_proactive_drop = false;
        c.tvf_scale_bin = 0; // every curve pv_max / 2 at bin 0: PV <= pv_max / 2 < CTV
        Pipeline p(c);
        p.SetFairRate(uint64_t(c.tvf_min_kbps) * 1000);
        for (uint8_t q = 0; q < c.num_queues; ++q)
        {
            p.SetQueueCtvRange(q, 0xFFFF, 0xFFFF);
            p.SetQueueCtv(q, 0xFFFF);
        }
        uint64_t pv = 0;
        for (int i = 0; i < 50; ++i)
        {
            const uint64_t t = i * 4 * MS;
            p.Enqueue(udp(t, 9));
            p.Enqueue(Data(t));
            for (DeqResult r = p.Dequeue(t + 3 * MS); r.valid; r = p.Dequeue(t + 3 * MS))
                pv += r.action == Action::DROP_PV;
        }
        uint64_t fpv = 0, fq = 0;
        for (const auto& [key, f] : p.Diagnostics().flows)
            fpv += f.pv;
        for (const QueueState& q : p.Queues())
            fq += q.drops;
        CHECK(pv == 100 && fpv == pv && fq == pv, "PV drops: verdicts " << pv << " (expected all 100), per flow " << fpv
                                                                         << ", per queue " << fq);
        // the same packets without a standing queue (sojourn 0 < target >> pv_gate_shift): none dropped
        Pipeline q0(c);
        q0.SetFairRate(uint64_t(c.tvf_min_kbps) * 1000);
        for (uint8_t q = 0; q < c.num_queues; ++q)
        {
            q0.SetQueueCtvRange(q, 0xFFFF, 0xFFFF);
            q0.SetQueueCtv(q, 0xFFFF);
        }
        uint64_t passed = 0;
        for (int i = 0; i < 50; ++i)
        {
            q0.Enqueue(udp(i * 10 * US, 9));
            q0.Enqueue(Data(i * 10 * US));
            for (DeqResult r = q0.Dequeue(i * 10 * US); r.valid; r = q0.Dequeue(i * 10 * US))
                passed += r.action == Action::FORWARD;
        }
        CHECK(passed == 100, "no standing queue, no PV verdict: " << passed << " of 100 forwarded");
    }
}

// The fair rate is speed / long-lived flows whatever each group forwarded (D12): ants and mice
// do not count (groups 2.. are long-lived).
void
TestFairRate()
{
    const uint32_t loss0 = 4, model = 7, delay1 = 3;
    std::vector<uint32_t> n(8, 0);
    n[0] = 3; // ants
    n[1] = 2; // mice
    CHECK(Pipeline::FairRate(20e6, n, 2) == 0, "no long-lived flow: no fair rate");
    n[loss0] = 1;
    n[model] = 1;
    n[delay1] = 1;
    CHECK(std::abs(Pipeline::FairRate(20e6, n, 2) - 20e6 / 3) < 1e-6, "speed / 3 long-lived flows");
    std::string got;
    try
    {
        RefuseRemovedCaseKeys(json::parse(R"({"name": "x", "sent_kbps": {"loss0": 1}})"), "x");
    }
    catch (const std::invalid_argument& ex)
    {
        got = ex.what();
    }
    CHECK(got == "controller case x: sent_kbps was removed (algorithm.md D12)", "a case with sent rates: \"" << got << "\"");
}

// The share correction remembers each group's flows from one CorrectShares call to the next (D13):
// a group that fills between two rounds sits out the first round it has flows in, then steps.
void
TestCorrectionPreviousFlows()
{
    g_ctx = "correction-previous-flows";
    Config c = Config::Defaults();
    c.link_rate_bps = 20000000;
    Pipeline p(c);
    const uint32_t loss0 = P::GROUP_LOSS_BASE, loss1 = P::GROUP_LOSS_BASE + 1;
    std::vector<uint32_t> n(P::NUM_GROUPS, 0);
    std::vector<double> bits(P::NUM_GROUPS, 0.0);
    std::vector<uint64_t> sig(P::NUM_GROUPS, 0);
    // round 1: loss0 alone
    n[loss0] = 1, bits[loss0] = 19.5e6, sig[loss0] = 1;
    p.CorrectShares(n, bits, sig, 1.0);
    CHECK(p.Correction()[loss0] == 0.0, "alone, no correction");
    // round 2: loss1 has just filled: it sits out, so loss0 is alone again
    n[loss1] = 1, bits[loss0] = 15e6, bits[loss1] = 4.5e6, sig[loss1] = 1;
    p.CorrectShares(n, bits, sig, 1.0);
    CHECK(p.Correction()[loss0] == 0.0 && p.Correction()[loss1] == 0.0,
          "a group that has just filled sits out: " << p.Correction()[loss0] << ", " << p.Correction()[loss1]);
    // round 3: both had flows a round before: loss1, below its share, goes up
    p.CorrectShares(n, bits, sig, 1.0);
    CHECK(p.Correction()[loss1] > 0 && p.Correction()[loss0] < 0,
          "both step: " << p.Correction()[loss0] << ", " << p.Correction()[loss1]);
}

int
main(int argc, char** argv)
{
    TestTables();
    TestFlowHash();
    TestTvf();
    TestReadFlowSignature();
    TestSymmetricAndCollision();
    TestSynRestarts();
    TestLostReset(false);
    TestLostReset(true);
    TestFirstInterval();
    TestRttWrap();
    TestStaleRtt();
    TestRetransmissions();
    TestDrr();
    TestController();
    TestAqm();
    TestCocoa();
    TestCocoaDelayFloor(true);
    TestCocoaDelayFloor(false);
    TestFairRate();
    TestCorrectionPreviousFlows();
    TestDiag();
    TestNs3Adapter();
    std::cout << "unit tests: " << g_pass << " passed, " << g_fail << " failed\n";

    const std::string dir = argc > 1 ? argv[1] : "../../testdata/vectors";
    std::vector<std::string> files;
    if (DIR* d = opendir(dir.c_str()))
    {
        while (dirent* e = readdir(d))
        {
            std::string n = e->d_name;
            if (n.size() > 5 && n.substr(n.size() - 5) == ".json" && n != "schema.json")
                files.push_back(dir + "/" + n);
        }
        closedir(d);
    }
    std::sort(files.begin(), files.end());
    try
    {
        RunControllerCases(dir + "/../controller/cases.json");
    }
    catch (const std::exception& ex)
    {
        ++g_fail;
        std::cout << "controller cases: ERROR " << ex.what() << "\n";
    }
    g_ctx = "vectors";
    CHECK(!files.empty(), "no test vectors in " << dir);
    for (const auto& f : files)
    {
        try
        {
            RunVector(f);
        }
        catch (const std::exception& ex)
        {
            ++g_fail;
            std::cout << "vector " << f << ": ERROR " << ex.what() << "\n";
        }
    }
    std::cout << "model: " << g_pass << " passed, " << g_fail << " failed\n";
    return g_fail ? 1 : 0;
}
