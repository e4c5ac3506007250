// SPDX-License-Identifier: Apache-2.0
// Unit tests of the ccfair pipeline and the runner of the shared test vectors
// (testdata/vectors/*.json, format in testdata/README.md). Plain C++ with tiny
// assertion macros; ends with "model: N passed, N failed" and exits 1 on failure.
#include "ccfair-params.h"
#include "ccfair-queue-disc.h"
#include "pipeline.h"

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/traffic-control-module.h"

#include <nlohmann/json.hpp>

#include <arpa/inet.h>
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

void
TestLog2()
{
    g_ctx = "log2";
    CHECK(Pipeline::Log2Q8(0) == INT32_MIN, "log2(0) is the 'unknown' marker");
    CHECK(Pipeline::Log2Q8(1) == 0, "log2(1) = 0");
    CHECK(Pipeline::Log2Q8(1024) == 10 * 256, "log2(1024) = 10 exactly");
    double worst = 0;
    for (uint64_t x : {3ULL, 7ULL, 1000ULL, 1500ULL, 12345ULL, 65535ULL, 1000000ULL, 123456789ULL})
        worst = std::max(worst, std::fabs(Pipeline::Log2Q8(x) / 256.0 - std::log2(double(x))));
    CHECK(worst < 0.01, "8-bit mantissa table is within 0.01 of log2, worst " << worst);
}

void
TestTvfAndBins()
{
    g_ctx = "tvf";
    Pipeline p;
    const Config& c = p.Cfg();
    // link 100 Mbit/s, no flows yet: fair rate = link = 10^5 kbps -> bin 16 x log10(10^4) = 64
    const uint32_t fb = 4 * c.tvf_steps_per_decade, d = c.tvf_steps_per_decade;
    bool mono = true, strict = true;
    for (uint32_t g = 0; g < P::NUM_GROUPS; ++g)
        for (uint32_t i = 1; i < c.tvf_steps; ++i)
        {
            mono &= p.Tvf(uint8_t(g), i) <= p.Tvf(uint8_t(g), i - 1);
            if (i > fb - d && i <= fb + d)
                strict &= p.Tvf(uint8_t(g), i) < p.Tvf(uint8_t(g), i - 1);
        }
    CHECK(mono, "TVFs never increase with the rate");
    CHECK(strict, "TVFs strictly decrease within a decade of the fair rate");
    CHECK(std::abs(int(p.Tvf(2, fb)) - int(c.pv_max / 2)) <= 1, "fair rate's bin is worth pv_max / 2: " << p.Tvf(2, fb));
    CHECK(p.Tvf(2, fb - d) >= c.pv_max - 1 && p.Tvf(2, fb + d) == 0, "pv_max at fair / 10, 0 at 10 x fair");
    // bin i starts at rate_min * 10^(i/steps_per_decade) kbps: 1 Mbps = 1000 kbps -> 2 decades above 10 kbps
    int32_t l1m = int32_t(std::lround(std::log2(1000.0) * 256));
    CHECK(p.RateBin(l1m + 2) == 2 * c.tvf_steps_per_decade, "1 Mbit/s falls in bin " << p.RateBin(l1m + 2));
    CHECK(p.RateBin(-100000) == 0, "tiny rates clamp to bin 0");
    CHECK(p.RateBin(100000) == c.tvf_steps - 1, "huge rates clamp to the last bin");
}

void
TestPvDraw()
{
    g_ctx = "pv-draw";
    Pipeline p;
    p.SetFairRate(10000000); // TVF centred on 10 Mbit/s
    // 1250 bytes/us = 10 Gbit/s; 1.25 bytes/us = 10 Mbit/s
    int32_t r10m = int32_t(std::lround(std::log2(1.25) * 256));
    uint16_t top = p.DrawPv(2, r10m, 65535); // u ~ 1: the flow's last bits
    uint16_t half = p.DrawPv(2, r10m, 32768);
    uint16_t low = p.DrawPv(2, r10m, 1);
    CHECK(top < half && half < low, "PV falls as the position u x rate grows: " << top << " " << half << " " << low);
    CHECK(p.DrawPv(2, INT32_MIN, 65535) == p.Cfg().pv_max, "no rate yet: PV is pv_max");
    // all draws of a flow lie at or above the TVF value at its rate
    bool ok = true;
    for (uint32_t r = 1; r < 65536; r += 97)
        ok &= p.DrawPv(2, r10m, uint16_t(r)) >= top;
    CHECK(ok, "every draw is >= TVF(rate)");
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
    // after idle_intervals x RTT the slot expires and is taken over
    EnqResult late = p.Enqueue(Data(1 * MS + uint64_t(c.default_rtt_us) * US * c.idle_intervals, 0x0a000002, 40001));
    CHECK(late.flow == 0, "an expired slot is reused by a new flow");
}

void
TestDrr()
{
    g_ctx = "drr";
    Config c = Config::Defaults();
    Pipeline q(c);
    std::map<uint8_t, uint64_t> bytes;
    // ants go to queue 0, mice to queue 1: an untracked (non-TCP) stream and a TCP stream
    for (int i = 0; i < 200; ++i)
    {
        Pkt u = Data(0, 0x0a000009, 9, 0x0a000101, 53, 200);
        u.tcp = false;
        q.Enqueue(u);
        q.Enqueue(Data(0, 0x0a000001, 40000, 0x0a000101, 5201, 1500));
    }
    // the Cocoa initial limit is 100 packets per queue
    CHECK(q.Queues()[0].fifo.size() == c.cocoa_initial && q.Queues()[1].fifo.size() == c.cocoa_initial,
          "each queue held its Cocoa limit");
    for (int i = 0; i < 80; ++i)
    {
        DeqResult r = q.Dequeue(1 * MS);
        bytes[r.queue] += r.queue == 0 ? 200 : 1500;
    }
    double ratio = double(bytes[0]) / double(bytes[1]);
    CHECK(ratio > 0.8 && ratio < 1.25, "DRR shares bytes, not packets: ratio " << ratio);
}

void
TestControllerAllocation()
{
    g_ctx = "controller";
    Pipeline p;
    const auto& c = p.Cfg();
    // drive flows into groups by the rate-drop rule: handshake-less flows start as mice
    auto mkflow = [&](uint16_t port, uint64_t t0) {
        uint64_t t = t0;
        for (int n : {4, 8, 16, 8, 8})
        {
            for (int i = 0; i < n; ++i)
            {
                p.Enqueue(Data(t + i * 100 * US, 0x0a000001, port));
            }
            t += uint64_t(c.default_rtt_us) * US;
            while (p.Dequeue(t).valid)
            {
            }
        }
    };
    for (uint16_t f = 0; f < 4; ++f)
        mkflow(uint16_t(100 + f), 0);
    p.ControllerTick(5 * uint64_t(c.default_rtt_us) * US);
    CHECK(p.Groups()[2].active == 4, "four delay flows counted, got " << p.Groups()[2].active);
    std::set<uint8_t> qs;
    for (uint8_t s = 0; s < 4; ++s)
        qs.insert(p.QueueOf(2, s));
    CHECK(qs.size() == 4, "four flows of one group are dealt to four queues");
    CHECK(p.QueueOf(0, 0) == 0 && p.QueueOf(1, 0) == 1, "ants and mice keep queues 0 and 1");
    CHECK(p.QueueOf(4, 0) == 2 && p.QueueOf(6, 3) == 2, "empty groups park on the spare queue");
}

void
TestCocoa()
{
    g_ctx = "cocoa";
    Config c = Config::Defaults();
    // non-TCP packets: all in the ant queue (0), whatever the classifier does
    auto udp = [](uint64_t t) {
        Pkt u = Data(t);
        u.tcp = false;
        return u;
    };
    Pipeline p(c);
    // fill the queue to its limit, let it go idle, then hit the limit again: it grows
    for (int i = 0; i < 120; ++i)
        p.Enqueue(udp(0));
    uint32_t before = p.Queues()[0].limit;
    for (int i = 0; i < 100; ++i)
        p.Dequeue(10 * MS + i * 100 * US); // drains by 20 ms, then idle
    for (int i = 0; i < 300; ++i)
        p.Enqueue(udp(40 * MS)); // idle 20 ms of a 40 ms interval
    uint32_t after = p.Queues()[0].limit;
    CHECK(before == c.cocoa_initial, "starts at the initial limit");
    CHECK(after > before && after <= uint32_t(before * c.cocoa_max_increase),
          "grows after idle, at most x" << c.cocoa_max_increase << ": " << before << " -> " << after);
    // a standing queue that never drains during the guard interval shrinks the limit
    Pipeline s(c);
    for (int i = 0; i < 60; ++i)
        s.Enqueue(udp(0));
    for (int k = 1; k <= 40; ++k) // keep ~60 packets queued for 2 s
    {
        s.Dequeue(k * 50 * MS);
        s.Enqueue(udp(k * 50 * MS));
    }
    CHECK(s.Queues()[0].limit < c.cocoa_initial, "standing queue shrinks the limit: " << s.Queues()[0].limit);
    CHECK(s.Queues()[0].limit >= c.cocoa_min, "never below the minimum");
}

void
TestAqmLimits()
{
    g_ctx = "aqm-limits";
    Config c = Config::Defaults();
    c.default_rtt_us = 10000;
    c.ecn = false;
    Pipeline p(c);
    p.ControllerTick(0);
    // ceiling of the CTV range: the PV 3 bins above the fair rate's bin (link 100 Mbit/s, no flows: bin 64)
    CHECK(p.Queues()[1].ctv_hi == p.Tvf(1, 64 + 3), "CTV ceiling " << p.Queues()[1].ctv_hi);
    // a flow measured at 12 Mbit/s (mid-connection, 10 x 1500 B in 10 ms) against a fair rate of
    // 1 Mbit/s, so its PVs are low, and the CTV forced to the top
    p.SetFairRate(1000000);
    for (int i = 0; i < 10; ++i)
        p.Enqueue(Data(i * 1000 * US));
    while (p.Dequeue(9 * MS).valid)
    {
    }
    for (const QueueState& cq : p.Queues()) // whichever queue the flow's group maps to
    {
        QueueState& q = const_cast<QueueState&>(cq);
        q.ctv = q.ctv_lo = q.ctv_hi = 65535;
    }
    for (int i = 0; i < 3; ++i)
    {
        Pkt d = Data(10 * MS + i * 100 * US);
        d.rand16 = 65535;
        p.Enqueue(d);
    }
    std::vector<int> acts;
    for (int i = 0; i < 3; ++i)
        acts.push_back(int(p.Dequeue(10 * MS + 500 * US).action));
    CHECK(acts == std::vector<int>({int(Action::DROP), int(Action::FORWARD), int(Action::FORWARD)}),
          "one AQM drop per flow per interval");
    Pkt n = Data(20 * MS); // next interval: the flow may be signalled again
    n.rand16 = 65535;
    p.Enqueue(n);
    CHECK(p.Dequeue(20 * MS).action == Action::DROP, "a new interval allows the next drop");
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
    q->Dispose();
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
                {"link_rate_bps", "fair_rate_bps", "default_rtt_us", "ant_max_pkts_per_interval", "m_ld",
                 "m_pl", "m_m", "target_delay_us", "ctv_update_interval_us", "ctv_step_up", "ctv_step_down",
                 "ecn", "num_queues", "initial_limit_pkts", "rtt_boundary_us", "ss_proactive_drop"},
                "config");
    c.link_rate_bps = cfg.value("link_rate_bps", c.link_rate_bps);
    c.default_rtt_us = cfg.value("default_rtt_us", c.default_rtt_us);
    c.ant_max_pkts = cfg.value("ant_max_pkts_per_interval", c.ant_max_pkts);
    c.m_ld = cfg.value("m_ld", c.m_ld);
    c.m_pl = cfg.value("m_pl", c.m_pl);
    c.m_m = cfg.value("m_m", c.m_m);
    c.target_delay_us = cfg.value("target_delay_us", c.target_delay_us);
    c.ctv_update_interval_us = cfg.value("ctv_update_interval_us", c.ctv_update_interval_us);
    c.ctv_step_up = cfg.value("ctv_step_up", c.ctv_step_up);
    c.ctv_step_down = cfg.value("ctv_step_down", c.ctv_step_down);
    c.ecn = cfg.value("ecn", c.ecn);
    c.num_queues = cfg.value("num_queues", c.num_queues);
    c.cocoa_initial = cfg.value("initial_limit_pkts", c.cocoa_initial);
    c.ss_proactive_drop = cfg.value("ss_proactive_drop", c.ss_proactive_drop);
    Pipeline p(c, 12345);
    if (cfg.contains("fair_rate_bps"))
        p.SetFairRate(cfg["fair_rate_bps"].get<uint64_t>());
    if (cfg.contains("rtt_boundary_us"))
        p.SetRttBoundary(cfg["rtt_boundary_us"].get<uint32_t>());

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

    int stepNo = 0;
    for (const json& s : v.at("steps"))
    {
        ++stepNo;
        const std::string op = s.value("op", "packet");
        const std::string where = "step " + std::to_string(stepNo) + " (" + op + ")";
        const uint64_t t0 = s.at("t_us").get<uint64_t>() * US;
        if (op == "packet")
        {
            AllowedKeys(s,
                        {"op", "t_us", "flow", "dir", "proto", "flags", "size", "payload", "ect", "u16", "repeat",
                         "every_us", "drain", "expect", "expect_last", "note"},
                        where);
            const FlowDef& f = flowOf(s);
            const bool rev = s.value("dir", "fwd") == "rev";
            const int n = s.value("repeat", 1);
            const uint64_t every = s.value("every_us", 0ULL) * US;
            for (int i = 0; i < n; ++i)
            {
                Pkt pk;
                pk.t_ns = t0 + every * i;
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
                EnqResult r = p.Enqueue(pk);
                if (s.value("drain", false))
                    while (p.Dequeue(pk.t_ns).valid)
                    {
                    }
                for (const char* key : {"expect", "expect_last"})
                {
                    if (!s.contains(key) || (std::string(key) == "expect_last" && i != n - 1))
                        continue;
                    const json& e = s[key];
                    AllowedKeys(e, {"verdict", "group", "pv", "queue"}, where + " " + key);
                    const std::string at = where + " packet " + std::to_string(i + 1) + "/" + std::to_string(n);
                    if (e.contains("verdict"))
                    {
                        const char* vs[] = {"enqueued", "drop_proactive", "drop_limit"};
                        CHECK(e["verdict"] == vs[int(r.verdict)], at << ": verdict " << vs[int(r.verdict)]
                                                                     << ", expected " << e["verdict"]);
                    }
                    if (e.contains("group"))
                    {
                        const Flow* fl = p.FindFlow(f.src, f.sport, f.dst, f.dport);
                        int g = fl ? int(fl->group) : -1;
                        CHECK(g == GroupByName(e["group"]),
                              at << ": group " << (g < 0 ? "untracked" : P::GROUP_NAMES[g]) << ", expected "
                                 << e["group"]);
                    }
                    if (e.contains("pv"))
                        CHECK(InRange(e["pv"], r.pv), at << ": pv " << r.pv << " not in " << e["pv"]);
                    if (e.contains("queue"))
                        CHECK(r.queue == e["queue"].get<int>(), at << ": queue " << int(r.queue));
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
                DeqResult r = p.Dequeue(t0);
                if (!r.valid)
                    break;
                last = r;
                acts.push_back(r.action == Action::DROP ? "drop" : r.action == Action::MARK ? "mark" : "forward");
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
                    QueueState& qs_ = const_cast<QueueState&>(p.Queues()[q]);
                    qs_.ctv_lo = s.value("ctv_lo", qs_.ctv_lo);
                    qs_.ctv_hi = s.value("ctv_hi", qs_.ctv_hi);
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
            const Flow* fl = rev ? p.FindFlow(f.dst, f.dport, f.src, f.sport) : p.FindFlow(f.src, f.sport, f.dst, f.dport);
            const json& e = s.at("expect");
            AllowedKeys(e, {"group", "rtt_us", "interval_pkts", "interval_acks", "intervals", "aggr", "bwest", "queue_ctv"},
                        where + " expect");
            if (e.contains("group"))
            {
                int g = fl ? int(fl->group) : -1;
                CHECK(g == GroupByName(e["group"]),
                      where << ": group " << (g < 0 ? "untracked" : P::GROUP_NAMES[g]) << ", expected " << e["group"]);
            }
            if (!fl)
            {
                CHECK(!e.contains("rtt_us") && !e.contains("interval_pkts"), where << ": flow not tracked");
                continue;
            }
            if (e.contains("rtt_us"))
                CHECK(InRange(e["rtt_us"], fl->rtt_us), where << ": rtt " << fl->rtt_us << " not in " << e["rtt_us"]);
            if (e.contains("interval_pkts"))
                CHECK(fl->pkts == e["interval_pkts"].get<uint32_t>(), where << ": interval pkts " << fl->pkts);
            if (e.contains("interval_acks"))
                CHECK(fl->acks == e["interval_acks"].get<uint32_t>(), where << ": interval acks " << fl->acks);
            if (e.contains("intervals"))
                CHECK(fl->intervals == e["intervals"].get<uint32_t>(), where << ": intervals " << fl->intervals);
            if (e.contains("aggr"))
                CHECK(fl->aggr == e["aggr"].get<uint32_t>(), where << ": aggr " << int(fl->aggr));
            if (e.contains("bwest"))
                CHECK(fl->bwest == e["bwest"].get<uint32_t>(), where << ": bwest " << int(fl->bwest));
            if (e.contains("queue_ctv"))
            {
                const json& qc = e["queue_ctv"];
                uint16_t ctv = p.Queues()[qc.at("queue").get<int>()].ctv;
                CHECK(InRange(qc.at("range"), ctv), where << ": ctv " << ctv);
            }
        }
        else
            throw VectorError(where + ": unknown op");
    }
    const int checks = g_pass + g_fail - pass0 - fail0;
    std::cout << "vector " << name << ": " << (g_fail == fail0 ? "ok" : "FAILED") << " (" << checks
              << " checks)\n";
}

} // namespace

// The same cases as the ONOS app's PolicyCompilerTest.fairRateLeavesOutGroupsThatDoNotUseTheirShare
// (groups 2.. are long-lived; rates in bit/s here, kbit/s there).
void
TestFairRate()
{
    const uint32_t shift = uint32_t(ccfair::params::CONTROLLER_LIMITED_SHARE_SHIFT);
    const uint32_t loss0 = 4, model = 7, delay0 = 2;
    std::vector<uint32_t> n(8, 0);
    n[loss0] = 1;
    n[model] = 1;
    std::vector<double> sent(8, -1.0);
    CHECK(Pipeline::FairRate(20e6, n, sent, 2, shift, 0) == 10e6, "unknown rates: speed / flows");
    sent[loss0] = 10.5e6;
    sent[model] = 9e6;
    CHECK(Pipeline::FairRate(20e6, n, sent, 2, shift, 0) == 10e6, "both groups use their share");
    sent[model] = 40e3;
    CHECK(std::abs(Pipeline::FairRate(20e6, n, sent, 2, shift, 0) - 19.96e6) < 1e-3, "a stalled flow leaves its share");
    sent[model] = 10e6 / (1 << shift) + 1;
    CHECK(Pipeline::FairRate(20e6, n, sent, 2, shift, 0) == 10e6, "just above fair >> shift: still counted");
    n[delay0] = 2;
    sent[model] = 0;
    sent[delay0] = 2 * 5e6 / (1 << shift) + 1;
    sent[loss0] = 18e6;
    CHECK(std::abs(Pipeline::FairRate(20e6, n, sent, 2, shift, 0) - (20e6 - sent[delay0])) < 1e-3,
          "limited groups are found repeatedly");
    sent[loss0] = 0;
    CHECK(Pipeline::FairRate(20e6, n, sent, 2, shift, 0) == 20e6, "every group limited: the link");
    CHECK(Pipeline::FairRate(20e6, n, sent, 2, shift, 4) <= 20e6, "never above the link");
}

int
main(int argc, char** argv)
{
    TestLog2();
    TestTvfAndBins();
    TestPvDraw();
    TestSymmetricAndCollision();
    TestDrr();
    TestControllerAllocation();
    TestCocoa();
    TestAqmLimits();
    TestFairRate();
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
