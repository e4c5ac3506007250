// SPDX-License-Identifier: Apache-2.0
// Dumbbell used by eval/run: N senders -> router L -> bottleneck -> router R -> N receivers.
// One sender and one receiver node per flow, because ns-3 picks the TCP variant per node
// (TcpL4Protocol::SocketType) and DCTCP's ECE echo needs the receiver to run DCTCP too.
// The per-flow RTT lives on the sender's access link. The AQM under test is the root queue
// disc of L's bottleneck device; every other device gets a deep pfifo so it never shapes
// traffic. Validation of scenario files happens in eval/run (Python); this program only
// rejects what it cannot build, with exit code 2. Output: one raw JSON line on stdout.
// Optional short flows (--short): Poisson arrivals of web-size transfers, each a new TCP
// connection from one more sender node, timed from its start to its last byte's arrival.
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"
#include "tcp-illinois-linux.h" // "illinois": ns-3.44's TcpIllinois stops growing (see there)
#include "tcp-vegas-linux.h"    // "vegas": ns-3.44's TcpVegas cuts at most a quarter on a loss, Linux half (see there)
#ifdef CCFAIR_MODEL
#include "ccfair-queue-disc.h"
#include "pipeline.h" // the model's diagnostics read-out
#endif

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

using namespace ns3;

namespace
{

// Bottleneck one-way propagation delay; the rest of each flow's RTT is on its access link.
const double kBottleneckDelayMs = 1.0;

struct FlowSpec
{
    std::string tcpType; // ns-3 TypeId name, e.g. ns3::TcpCubic (mapped from the CC name by eval/run)
    double rttMs;
    double startS;
    double appRateMbps = 0; // > 0: the application offers at most this payload rate (app-limited)
};

[[noreturn]] void
Fail(const std::string& msg)
{
    std::cerr << "dumbbell: " << msg << std::endl;
    std::exit(2);
}

// Short-flow sizes "web": a bounded Pareto (docs/eval.md, "Short flows"): tail index 0.63, the
// upper end of the 0.40-0.63 Arlitt and Williamson measured for transferred file sizes on six
// Web servers (SIGMETRICS 1996), bounded to [2 KB, 10 MB]; mean 76.5 KB. eval/pylib's WEB_SIZES
// holds the same numbers (the sweep sets arrival rates from the mean).
const double kWebAlpha = 0.63;
const double kWebMinBytes = 2e3;
const double kWebMaxBytes = 1e7;

struct ShortSpec
{
    std::string tcpType;
    double rttMs = 0;
    double arrivalPerS = 0;
    std::string dist;
    double startS = 0;
    double stopS = 0;
};

std::vector<std::string>
Split(const std::string& s, char sep)
{
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, sep))
    {
        if (!item.empty())
        {
            out.push_back(item);
        }
    }
    return out;
}

// "ns3::TcpCubic,50,0;ns3::TcpVegasLinux,50,0,2.5" -> flows (TYPE,RTT_MS,START_S[,APP_RATE_MBPS])
std::vector<FlowSpec>
ParseFlows(const std::string& s)
{
    std::vector<FlowSpec> flows;
    for (const auto& f : Split(s, ';'))
    {
        auto parts = Split(f, ',');
        if (parts.size() != 3 && parts.size() != 4)
        {
            Fail("--flows entry '" + f + "' is not TYPE,RTT_MS,START_S[,APP_RATE_MBPS]");
        }
        FlowSpec spec{parts[0], std::stod(parts[1]), std::stod(parts[2])};
        if (parts.size() == 4)
        {
            spec.appRateMbps = std::stod(parts[3]);
            if (!(spec.appRateMbps > 0))
            {
                Fail("app rate " + parts[3] + " in --flows is not above 0");
            }
        }
        TypeId tid;
        if (!TypeId::LookupByNameFailSafe(spec.tcpType, &tid))
        {
            Fail("unknown TCP type '" + spec.tcpType + "' in --flows");
        }
        if (spec.rttMs < 2 * kBottleneckDelayMs)
        {
            Fail("rtt_ms " + parts[1] + " is below twice the bottleneck delay");
        }
        flows.push_back(spec);
    }
    if (flows.empty())
    {
        Fail("--flows is empty");
    }
    return flows;
}

// "ns3::TcpCubic,40,20,web,5,35" -> short flows (TYPE,RTT_MS,ARRIVAL_PER_S,DIST,START_S,STOP_S)
ShortSpec
ParseShort(const std::string& s, double durationS)
{
    auto parts = Split(s, ',');
    if (parts.size() != 6)
    {
        Fail("--short '" + s + "' is not TYPE,RTT_MS,ARRIVAL_PER_S,DIST,START_S,STOP_S");
    }
    ShortSpec spec{parts[0], std::stod(parts[1]), std::stod(parts[2]), parts[3], std::stod(parts[4]),
                   std::stod(parts[5])};
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(spec.tcpType, &tid))
    {
        Fail("unknown TCP type '" + spec.tcpType + "' in --short");
    }
    if (spec.rttMs < 2 * kBottleneckDelayMs || spec.arrivalPerS <= 0 || spec.dist != "web" ||
        spec.startS < 0 || spec.stopS <= spec.startS || spec.stopS > durationS)
    {
        Fail("--short needs rtt_ms >= 2, arrival_per_s > 0, dist web, 0 <= start_s < stop_s <= duration_s");
    }
    return spec;
}

std::string
JsonStr(const std::string& s)
{
    std::string out = "\"";
    for (char c : s)
    {
        if (c == '"' || c == '\\')
        {
            out += '\\';
        }
        out += c;
    }
    return out + "\"";
}

double
Percentile(std::vector<double>& v, double p)
{
    if (v.empty())
    {
        return 0.0;
    }
    size_t k = std::min(v.size() - 1, static_cast<size_t>(p * (v.size() - 1) + 0.5));
    std::nth_element(v.begin(), v.begin() + k, v.end());
    return v[k];
}

// Time a packet entered the bottleneck's root queue disc. A packet tag, not a map keyed by
// packet uid: the segments TCP cuts from one application write share a uid, so a uid map
// sampled only one segment per write (4,625 of 32,394 packets in one run), biased low.
class EnqueueTimeTag : public Tag
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ccfair::EnqueueTimeTag").SetParent<Tag>().AddConstructor<EnqueueTimeTag>();
        return tid;
    }
    TypeId GetInstanceTypeId() const override { return GetTypeId(); }
    uint32_t GetSerializedSize() const override { return 8; }
    void Serialize(TagBuffer b) const override { b.WriteU64(uint64_t(t.GetTimeStep())); }
    void Deserialize(TagBuffer b) override { t = TimeStep(b.ReadU64()); }
    void Print(std::ostream& os) const override { os << "enq=" << t; }
    Time t;
};

// Measurement state, filled by trace sinks.
struct Meter
{
    Time warmup;
    Time end;
    double bitRate = 0;
    double busyS = 0; // bottleneck transmission time inside [warmup, end]
    uint64_t txAfterWarmup = 0; // packets whose transmission started at or after warm-up
    uint32_t maxQueued = 0;     // peak packets held by the root queue disc (whole run)
    std::vector<double> sojournMs;  // bottleneck queuing delays of packets sent after warm-up
    std::map<uint32_t, size_t> flowBySrc; // sender IPv4 (host order) -> flow index
    bool measuring = false;               // set at warm-up, with the queue disc's stats snapshot
    // per flow (index n: all short flows), after warm-up, from the root queue disc's traces
    std::vector<uint64_t> qdDrops, qdMarks;
    uint32_t shortSrc = 0;                // the short flows' sender IPv4, 0 without short flows
    struct Change
    {
        double t;
        size_t flow;
        int oldGroup;
        int newGroup;
    };
    std::vector<Change> changes;
};

Meter g_meter;

// The ccfair model's per-flow diagnostics summed over a flow's connections (ccfair runs only).
struct DiagSum
{
    uint64_t pkts = 0, ant = 0, mouse = 0, pv = 0, limit = 0, buffer = 0, ss = 0, marks = 0;
    // connections with packets in the window, and those whose every packet was an ant's or a mouse's
    uint64_t conns = 0, connsAntMouse = 0;

    void Add(uint64_t p, uint64_t a, uint64_t m, uint64_t v, uint64_t l, uint64_t b, uint64_t s, uint64_t k)
    {
        pkts += p, ant += a, mouse += m, pv += v, limit += l, buffer += b, ss += s, marks += k;
        conns += p > 0;
        connsAntMouse += p > 0 && a + m == p;
    }

    std::string Json() const
    {
        std::ostringstream o;
        o << "{\"pkts\":" << pkts << ",\"pkts_ant\":" << ant << ",\"pkts_mouse\":" << mouse << ",\"pv\":" << pv
          << ",\"limit\":" << limit << ",\"buffer\":" << buffer << ",\"ss\":" << ss << ",\"marks\":" << marks
          << ",\"conns\":" << conns << ",\"conns_ant_mouse\":" << connsAntMouse << "}";
        return o.str();
    }
};

// Queuing delay of every packet the bottleneck transmits: from the moment the root queue
// disc accepts it ("Enqueue" fires for packets held in its internal queues or child queue
// discs alike) to the device starting its transmission (PhyTxBegin), so it covers the AQM
// under test and the one-packet device queue. Packets dropped before or after the queue
// are not samples: they are never transmitted.
void
OnRootEnqueue(Ptr<const QueueDiscItem> item)
{
    EnqueueTimeTag tag;
    tag.t = Simulator::Now();
    item->GetPacket()->AddPacketTag(tag);
}

void
OnPacketsInQueue(uint32_t, uint32_t now)
{
    g_meter.maxQueued = std::max(g_meter.maxQueued, now);
}

void
RecordDelay(Ptr<const Packet> p)
{
    if (Simulator::Now() < g_meter.warmup)
    {
        return;
    }
    g_meter.txAfterWarmup++;
    EnqueueTimeTag tag;
    if (p->PeekPacketTag(tag))
    {
        g_meter.sojournMs.push_back((Simulator::Now() - tag.t).GetSeconds() * 1e3);
    }
}

// Utilisation = the share of the measurement window the bottleneck spends transmitting
// (PPP header included), each transmission clipped to the window, so it cannot exceed 1.
void
OnPhyTxBegin(Ptr<const Packet> p)
{
    RecordDelay(p);
    double t0 = Simulator::Now().GetSeconds();
    double t1 = t0 + p->GetSize() * 8.0 / g_meter.bitRate;
    double lo = std::max(t0, g_meter.warmup.GetSeconds());
    double hi = std::min(t1, g_meter.end.GetSeconds());
    if (hi > lo)
    {
        g_meter.busyS += hi - lo;
    }
}

// Drops and marks per flow, by the packet's sender: the root queue disc's "Drop" trace covers
// drops before enqueue and after dequeue, including those of internal queues and child queue
// discs, i.e. exactly what its nTotalDroppedPackets counts.
size_t
FlowOfItem(Ptr<const QueueDiscItem> item)
{
    Ptr<const Ipv4QueueDiscItem> ip = DynamicCast<const Ipv4QueueDiscItem>(item);
    if (!ip)
    {
        return SIZE_MAX;
    }
    const uint32_t src = ip->GetHeader().GetSource().Get();
    if (g_meter.shortSrc && src == g_meter.shortSrc)
    {
        return g_meter.qdDrops.size() - 1;
    }
    auto it = g_meter.flowBySrc.find(src);
    return it == g_meter.flowBySrc.end() ? SIZE_MAX : it->second;
}

void
OnQdiscDrop(Ptr<const QueueDiscItem> item)
{
    size_t f = FlowOfItem(item);
    if (g_meter.measuring && f != SIZE_MAX)
    {
        g_meter.qdDrops[f]++;
    }
}

void
OnQdiscMark(Ptr<const QueueDiscItem> item, const char*)
{
    size_t f = FlowOfItem(item);
    if (g_meter.measuring && f != SIZE_MAX)
    {
        g_meter.qdMarks[f]++;
    }
}

// One short flow: a new TCP connection that sends `bytes` and closes. Its completion time runs
// from the connection attempt (the SYN) to the arrival of its last byte at the receiver.
struct ShortFlow
{
    double startS = 0;
    uint64_t bytes = 0;
    uint64_t rx = 0;
    double doneS = -1;
};

struct ShortFlows
{
    ShortSpec spec;
    Ptr<Node> sender;
    Address sink;
    std::vector<ShortFlow> flows;
    std::unordered_map<uint16_t, size_t> byPort; // the sender's ephemeral port -> flow
    Ptr<ExponentialRandomVariable> gap;
    Ptr<UniformRandomVariable> size;
    uint64_t rxMeasured = 0; // bytes delivered after warm-up
};

ShortFlows g_short;

uint64_t
WebSize(double u)
{
    // inverse CDF of the bounded Pareto on [L, H]: F(x) = (1 - (L/x)^a) / (1 - (L/H)^a)
    const double tail = std::pow(kWebMinBytes / kWebMaxBytes, kWebAlpha);
    return uint64_t(std::ceil(kWebMinBytes / std::pow(1.0 - u * (1.0 - tail), 1.0 / kWebAlpha)));
}

void
StartShortFlow()
{
    ShortFlow f;
    f.startS = Simulator::Now().GetSeconds();
    f.bytes = std::min<uint64_t>(WebSize(g_short.size->GetValue()), uint64_t(kWebMaxBytes));
    Ptr<Socket> s = Socket::CreateSocket(g_short.sender, TcpSocketFactory::GetTypeId());
    if (s->Bind() != 0)
    {
        Fail("short flows: no ephemeral port left for flow " + std::to_string(g_short.flows.size()));
    }
    Address local;
    s->GetSockName(local);
    g_short.byPort[InetSocketAddress::ConvertFrom(local).GetPort()] = g_short.flows.size();
    const uint64_t bytes = f.bytes;
    g_short.flows.push_back(f);
    // Send once connected (the 16 MiB send buffer holds the largest size), then close: the FIN
    // follows the data.
    s->SetConnectCallback(Callback<void, Ptr<Socket>>([bytes](Ptr<Socket> sock) {
                              sock->Send(Create<Packet>(uint32_t(bytes)));
                              sock->Close();
                          }),
                          Callback<void, Ptr<Socket>>([](Ptr<Socket>) {}));
    s->Connect(g_short.sink);
    Time next = Seconds(g_short.gap->GetValue());
    if (Simulator::Now() + next < Seconds(g_short.spec.stopS))
    {
        Simulator::Schedule(next, &StartShortFlow);
    }
}

void
OnShortRx(Ptr<const Packet> p, const Address& from)
{
    if (g_meter.measuring)
    {
        g_short.rxMeasured += p->GetSize();
    }
    auto it = g_short.byPort.find(InetSocketAddress::ConvertFrom(from).GetPort());
    if (it == g_short.byPort.end())
    {
        return;
    }
    ShortFlow& f = g_short.flows[it->second];
    f.rx += p->GetSize();
    if (f.doneS < 0 && f.rx >= f.bytes)
    {
        f.doneS = Simulator::Now().GetSeconds();
    }
}

#ifdef CCFAIR_MODEL
void
OnGroupChange(Ipv4Address src, uint16_t, Ipv4Address, uint16_t, uint8_t oldGroup, uint8_t newGroup)
{
    auto it = g_meter.flowBySrc.find(src.Get());
    if (it != g_meter.flowBySrc.end())
    {
        g_meter.changes.push_back({Simulator::Now().GetSeconds(), it->second, oldGroup, newGroup});
    }
}
#endif

// Root queue disc for the AQM under test. ECN marking is on for every AQM that can mark, as
// in Linux fq_codel; only DCTCP flows negotiate ECN, the others are dropped instead.
Ptr<QueueDisc>
InstallAqm(const std::string& aqm, Ptr<NetDevice> dev, uint32_t bufferPkts, double rateMbps,
           const std::string& queueLayout, const std::string& weights)
{
    TrafficControlHelper tch;
    std::string limit = std::to_string(bufferPkts) + "p";
    if (aqm == "fifo")
    {
        tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue(limit));
    }
    else if (aqm == "red")
    {
        tch.SetRootQueueDisc("ns3::RedQueueDisc",
                             "MaxSize", StringValue(limit),
                             "LinkBandwidth", DataRateValue(DataRate(rateMbps * 1e6)),
                             "LinkDelay", TimeValue(MilliSeconds(kBottleneckDelayMs)),
                             "UseEcn", BooleanValue(true));
    }
    else if (aqm == "codel")
    {
        tch.SetRootQueueDisc("ns3::CoDelQueueDisc", "MaxSize", StringValue(limit),
                             "UseEcn", BooleanValue(true));
    }
    else if (aqm == "fq_codel")
    {
        tch.SetRootQueueDisc("ns3::FqCoDelQueueDisc", "MaxSize", StringValue(limit),
                             "UseEcn", BooleanValue(true));
    }
    else if (aqm == "pie")
    {
        tch.SetRootQueueDisc("ns3::PieQueueDisc", "MaxSize", StringValue(limit),
                             "UseEcn", BooleanValue(true));
    }
    else if (aqm == "fq_pie")
    {
        tch.SetRootQueueDisc("ns3::FqPieQueueDisc", "MaxSize", StringValue(limit),
                             "UseEcn", BooleanValue(true));
    }
    else if (aqm == "ccfair")
    {
#ifdef CCFAIR_MODEL
        // Target delay, ECN and controller period come from params/ccfair.json via the
        // model's defaults; link rate and the port's buffer are properties of the scenario
        // (the same packet limit every other AQM gets), and so is the emulated controller's
        // queue layout (empty: params queues.layout) and the intent's weights (empty: per-flow).
        tch.SetRootQueueDisc("ns3::CcfairQueueDisc",
                             "MaxSize", StringValue(limit),
                             "LinkRate", DataRateValue(DataRate(rateMbps * 1e6)),
                             "QueueLayout", StringValue(queueLayout),
                             "Weights", StringValue(weights));
#else
        Fail("aqm 'ccfair' is unavailable: the ccfair model (eval/model/ccfair-queue-disc.h) "
             "was not built into this binary");
#endif
    }
    else
    {
        Fail("unknown aqm '" + aqm + "'");
    }
    QueueDiscContainer qd = tch.Install(dev);
    return qd.Get(0);
}

} // namespace

int
main(int argc, char* argv[])
{
    double rateMbps = 20;
    uint32_t bufferPkts = 200;
    double durationS = 30;
    double warmupS = 10;
    uint32_t seed = 1;
    double timelineMs = 0;
    double accessFactor = 10;
    std::string aqm = "fifo";
    std::string queueLayout;
    std::string weights;
    std::string flowsArg;
    std::string shortArg;
    std::string recovery = "prr";
    bool timestamps = true;
    uint32_t edges = 0;
    double uplinkMbps = 0;
    std::string flowEdgesArg;
    uint32_t delAck = 1; // the one departure from ns-3's defaults still needed on 3.44 (docs/eval.md)
    double delAckTimeoutMs = 200;

    CommandLine cmd(__FILE__);
    cmd.AddValue("rate_mbps", "bottleneck rate (Mbit/s)", rateMbps);
    cmd.AddValue("buffer_pkts", "bottleneck buffer (packets)", bufferPkts);
    cmd.AddValue("duration_s", "simulated time (s)", durationS);
    cmd.AddValue("warmup_s", "measurement starts here (s)", warmupS);
    cmd.AddValue("seed", "run number for the RNG", seed);
    cmd.AddValue("aqm", "fifo|red|codel|fq_codel|pie|fq_pie|ccfair", aqm);
    cmd.AddValue("queue_layout", "ccfair only: shared|isolated (default: params queues.layout)", queueLayout);
    cmd.AddValue("weights", "ccfair only: the intent's weighted-groups weights, FAMILY:W,... (default: per-flow)",
                 weights);
    cmd.AddValue("flows", "TYPE,RTT_MS,START_S;...", flowsArg);
    cmd.AddValue("short", "short flows: TYPE,RTT_MS,ARRIVAL_PER_S,DIST,START_S,STOP_S (DIST: web)", shortArg);
    cmd.AddValue("edges", "fabric: senders sit behind this many edge switches, each with its own uplink to "
                 "the bottleneck's switch, which receives their packets on fabric ports (0: one switch)", edges);
    cmd.AddValue("uplink_mbps", "fabric: each edge switch's uplink rate (Mbit/s)", uplinkMbps);
    cmd.AddValue("flow_edges", "fabric: the edge switch of each long-lived flow, E,E,... (short flows: edge 0)",
                 flowEdgesArg);
    cmd.AddValue("timeline_ms", "per-flow throughput sample period, 0 = off", timelineMs);
    cmd.AddValue("access_factor", "access link rate / bottleneck rate", accessFactor);
    cmd.AddValue("recovery", "TCP loss recovery: prr (ns-3 default) | classic", recovery);
    cmd.AddValue("timestamps", "TCP timestamps option (ns-3 default true)", timestamps);
    cmd.AddValue("delack", "segments per delayed ACK (ns-3 default 2; harness default 1)", delAck);
    cmd.AddValue("delack_timeout_ms", "delayed-ACK timer (ns-3 default 200 ms; Linux's minimum is 40 ms)", delAckTimeoutMs);
    cmd.Parse(argc, argv);

    if (rateMbps <= 0 || bufferPkts == 0 || durationS <= 0 || warmupS < 0 || warmupS >= durationS)
    {
        Fail("need rate_mbps > 0, buffer_pkts > 0 and 0 <= warmup_s < duration_s");
    }
    if ((recovery != "prr" && recovery != "classic") || delAck == 0 || delAckTimeoutMs <= 0)
    {
        Fail("need recovery prr|classic, delack >= 1 and delack_timeout_ms > 0");
    }
    if (!queueLayout.empty() && queueLayout != "shared" && queueLayout != "isolated")
    {
        Fail("queue_layout: unknown queue layout \"" + queueLayout + "\" (allowed: shared, isolated)");
    }
    if (!queueLayout.empty() && aqm != "ccfair")
    {
        Fail("queue_layout: only aqm ccfair has a queue layout, got aqm " + aqm);
    }
    if (!weights.empty() && aqm != "ccfair")
    {
        Fail("weights: only aqm ccfair has an intent, got aqm " + aqm);
    }
#ifdef CCFAIR_MODEL
    try
    {
        ccfair::ParseFamilyWeights(weights, "weights");
    }
    catch (const std::invalid_argument& e)
    {
        Fail(e.what());
    }
#endif
    std::vector<FlowSpec> flows = ParseFlows(flowsArg);
    std::vector<uint32_t> flowEdge(flows.size() + 1, 0);
    if (edges > 0)
    {
        if (!(uplinkMbps > 0))
        {
            Fail("edges: need uplink_mbps > 0");
        }
        const auto parts = Split(flowEdgesArg, ',');
        if (parts.size() != flows.size())
        {
            Fail("flow_edges: need one edge per long-lived flow (" + std::to_string(flows.size()) + "), got '" +
                 flowEdgesArg + "'");
        }
        for (size_t i = 0; i < parts.size(); ++i)
        {
            const long e = std::stol(parts[i]);
            if (e < 0 || e >= long(edges))
            {
                Fail("flow_edges: edge " + parts[i] + " is not in 0.." + std::to_string(edges - 1));
            }
            flowEdge[i] = uint32_t(e);
        }
    }
    else if (!flowEdgesArg.empty() || uplinkMbps != 0)
    {
        Fail("flow_edges and uplink_mbps need edges > 0");
    }
    const bool haveShort = !shortArg.empty();
    if (haveShort)
    {
        g_short.spec = ParseShort(shortArg, durationS);
    }
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);
    g_meter.warmup = Seconds(warmupS);
    g_meter.end = Seconds(durationS);
    g_meter.bitRate = rateMbps * 1e6;

    // Linux-like TCP: 1448-byte segments, IW10, 200 ms min RTO, buffers large enough that
    // windows never limit a flow (the bottleneck queue must be the only limit).
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 24));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 24));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
    // TCP: ns-3's defaults (PRR recovery and timestamps, as in Linux) except DelAckCount 1.
    // With ns-3's 200 ms delayed-ACK timer a window cut to one segment by an RTO is ACKed
    // after RTT + 200 ms, later than the next RTO, so the flow times out on every segment
    // for good; a 40 ms (Linux) timer still starves Vegas. Evidence: docs/eval.md, measured
    // by eval/sweep/tcp_knobs.py with the flags below.
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(recovery == "prr" ? TcpPrrRecovery::GetTypeId()
                                                     : TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(timestamps));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(delAck));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MicroSeconds(delAckTimeoutMs * 1e3)));

    const size_t n = flows.size();
    // one more sender/receiver pair carries every short flow (node n)
    const size_t nodes = n + (haveShort ? 1 : 0);
    g_meter.qdDrops.assign(n + 1, 0);
    g_meter.qdMarks.assign(n + 1, 0);
    NodeContainer routers;
    routers.Create(2);
    NodeContainer senders;
    senders.Create(nodes);
    NodeContainer receivers;
    receivers.Create(nodes);
    InternetStackHelper stack;
    stack.InstallAll();

    // Deep pfifo everywhere except the bottleneck, so only the AQM under test queues.
    TrafficControlHelper deepFifo;
    deepFifo.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue("100000p"));

    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", DataRateValue(DataRate(rateMbps * 1e6)));
    bottleneck.SetChannelAttribute("Delay", TimeValue(MilliSeconds(kBottleneckDelayMs)));
    bottleneck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1p"));
    NetDeviceContainer bnDevs = bottleneck.Install(routers.Get(0), routers.Get(1));
    Ptr<QueueDisc> qdisc = InstallAqm(aqm, bnDevs.Get(0), bufferPkts, rateMbps, queueLayout, weights);
    deepFifo.Install(bnDevs.Get(1));
    // Fabric: edge switches between the senders and the bottleneck's switch. Under ccfair each
    // edge switch's uplink runs the program as an edge switch (tracks, classifies, marks, pushes
    // the shim) and the bottleneck's switch receives on fabric ports; under the other AQMs the
    // uplinks are deep FIFOs (faster than the bottleneck, they never queue for long).
    NodeContainer leaves;
    std::vector<Ptr<QueueDisc>> leafQdiscs;
    if (edges > 0)
    {
        leaves.Create(edges);
        stack.Install(leaves);
    }
#ifdef CCFAIR_MODEL
    if (edges > 0 && aqm == "ccfair")
    {
        qdisc->SetAttribute("FabricArrivals", BooleanValue(true));
    }
#endif

    Ipv4AddressHelper addr;
    addr.SetBase("10.255.0.0", "255.255.255.0");
    addr.Assign(bnDevs);

    PointToPointHelper uplink;
    uplink.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uplinkMbps * 1e6)));
    uplink.SetChannelAttribute("Delay", TimeValue(Seconds(0)));
    uplink.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1p"));
    for (uint32_t e = 0; e < edges; ++e)
    {
        NetDeviceContainer u = uplink.Install(leaves.Get(e), routers.Get(0));
        Ptr<QueueDisc> lq;
        if (aqm == "ccfair")
        {
            lq = InstallAqm(aqm, u.Get(0), bufferPkts, uplinkMbps, queueLayout, weights);
#ifdef CCFAIR_MODEL
            lq->SetAttribute("PushShim", BooleanValue(true));
#endif
        }
        else
        {
            lq = deepFifo.Install(u.Get(0)).Get(0);
        }
        leafQdiscs.push_back(lq);
#ifdef CCFAIR_MODEL
        // one controller for the fabric: the bottleneck's port, which receives from fabric ports,
        // counts the flows the edge switches count (D22; an edge switch's uplink carries only its
        // own flows, so the edges need no peers)
        if (aqm == "ccfair")
        {
            DynamicCast<CcfairQueueDisc>(qdisc)->AddFabricPeer(DynamicCast<CcfairQueueDisc>(lq));
        }
#endif
        deepFifo.Install(u.Get(1));
        std::ostringstream ub;
        ub << "10.254." << e << ".0";
        addr.SetBase(ub.str().c_str(), "255.255.255.0");
        addr.Assign(u);
    }

    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", DataRateValue(DataRate(rateMbps * accessFactor * 1e6)));
    std::vector<Ipv4Address> rcvAddr(nodes), sndAddr(nodes);
    Ptr<UniformRandomVariable> jitter = CreateObject<UniformRandomVariable>();
    // Each long-lived flow's own source port, drawn by the seed. With one port for every flow
    // (each sender's first ephemeral port) the switch's hashes saw only the addresses 10.0.i.1 ->
    // 10.100.i.2, and CRC is linear: queue_map's slot (low bits of the CRC16) was bits 2-3 of i,
    // so 16 flows sat in their group's 4 slots 4 by 4 and the isolated layout could not spread them.
    Ptr<UniformRandomVariable> portRv = CreateObject<UniformRandomVariable>();
    std::set<uint16_t> usedPorts;
    const auto sourcePort = [&]() {
        for (;;)
        {
            const uint16_t p = uint16_t(portRv->GetInteger(1024, 49151)); // below ns-3's ephemeral ports
            if (usedPorts.insert(p).second)
                return p;
        }
    };
    for (size_t i = 0; i < nodes; ++i)
    {
        const bool isShort = i == n;
        TypeId tid = TypeId::LookupByName(isShort ? g_short.spec.tcpType : flows[i].tcpType);
        for (Ptr<Node> node : {senders.Get(i), receivers.Get(i)})
        {
            std::ostringstream path;
            path << "/NodeList/" << node->GetId() << "/$ns3::TcpL4Protocol/SocketType";
            Config::Set(path.str(), TypeIdValue(tid));
        }
        double oneWayMs = (isShort ? g_short.spec.rttMs : flows[i].rttMs) / 2 - kBottleneckDelayMs;
        access.SetChannelAttribute("Delay", TimeValue(MicroSeconds(oneWayMs * 1e3)));
        NetDeviceContainer s = access.Install(senders.Get(i), edges > 0 ? leaves.Get(flowEdge[i]) : routers.Get(0));
        access.SetChannelAttribute("Delay", TimeValue(Seconds(0)));
        NetDeviceContainer r = access.Install(routers.Get(1), receivers.Get(i));
        deepFifo.Install(s);
        deepFifo.Install(r);
        // 10.<i/250>.<i%250>.0/24-style subnets: plenty for the 128-flow mixes.
        std::ostringstream sb, rb;
        sb << "10." << (i / 250) << "." << (i % 250) << ".0";
        rb << "10." << (100 + i / 250) << "." << (i % 250) << ".0";
        addr.SetBase(sb.str().c_str(), "255.255.255.0");
        Ipv4InterfaceContainer si = addr.Assign(s);
        addr.SetBase(rb.str().c_str(), "255.255.255.0");
        Ipv4InterfaceContainer ri = addr.Assign(r);
        if (isShort)
        {
            g_meter.shortSrc = si.GetAddress(0).Get();
        }
        else
        {
            g_meter.flowBySrc[si.GetAddress(0).Get()] = i;
        }
        rcvAddr[i] = ri.GetAddress(1);
        sndAddr[i] = si.GetAddress(0);
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    const uint16_t port = 5000;
    std::vector<Ptr<PacketSink>> sinks(n);
    for (size_t i = 0; i < n; ++i)
    {
        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sa = sinkHelper.Install(receivers.Get(i));
        sa.Start(Seconds(0));
        sinks[i] = DynamicCast<PacketSink>(sa.Get(0));

        ApplicationContainer ba;
        const AddressValue local(InetSocketAddress(sndAddr[i], sourcePort()));
        if (flows[i].appRateMbps > 0)
        {
            // Application-limited: always on at the app's rate, one segment per write; TCP sends
            // less only if the network holds it below that rate.
            OnOffHelper app("ns3::TcpSocketFactory", InetSocketAddress(rcvAddr[i], port));
            app.SetConstantRate(DataRate(uint64_t(flows[i].appRateMbps * 1e6)), 1448);
            app.SetAttribute("Local", local);
            ba = app.Install(senders.Get(i));
        }
        else
        {
            BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(rcvAddr[i], port));
            bulk.SetAttribute("MaxBytes", UintegerValue(0));
            bulk.SetAttribute("SendSize", UintegerValue(1448 * 8));
            bulk.SetAttribute("Local", local);
            ba = bulk.Install(senders.Get(i));
        }
        // A seeded start jitter in [0, 10 ms) separates flows that a scenario starts together,
        // so that the seed actually changes the run.
        ba.Start(Seconds(flows[i].startS) + MicroSeconds(jitter->GetValue(0, 10000)));
        ba.Stop(Seconds(durationS));
    }

    if (haveShort)
    {
        // One sink takes every short connection; Rx names the sender's port, hence the flow.
        const uint16_t shortPort = 5001;
        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), shortPort));
        ApplicationContainer sa = sinkHelper.Install(receivers.Get(n));
        sa.Start(Seconds(0));
        sa.Get(0)->TraceConnectWithoutContext("Rx", MakeCallback(&OnShortRx));
        g_short.sender = senders.Get(n);
        g_short.sink = InetSocketAddress(rcvAddr[n], shortPort);
        // Created only with short flows, so runs without them draw exactly as before. Fixed
        // streams: every AQM sees the same arrivals and sizes for a seed (an automatic stream
        // number would depend on the random variables the AQM under test created first).
        g_short.gap = CreateObject<ExponentialRandomVariable>();
        g_short.gap->SetAttribute("Mean", DoubleValue(1.0 / g_short.spec.arrivalPerS));
        g_short.gap->SetStream(7001);
        g_short.size = CreateObject<UniformRandomVariable>();
        g_short.size->SetStream(7002);
        Simulator::Schedule(Seconds(g_short.spec.startS + g_short.gap->GetValue()), [&]() {
            if (Simulator::Now() < Seconds(g_short.spec.stopS))
            {
                StartShortFlow();
            }
        });
    }

    bnDevs.Get(0)->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&OnPhyTxBegin));
    qdisc->TraceConnectWithoutContext("Drop", MakeCallback(&OnQdiscDrop));
    qdisc->TraceConnectWithoutContext("Mark", MakeCallback(&OnQdiscMark));
    qdisc->TraceConnectWithoutContext("Enqueue", MakeCallback(&OnRootEnqueue));
    qdisc->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnPacketsInQueue));
#ifdef CCFAIR_MODEL
    if (aqm == "ccfair")
    {
        // the switch that tracks the flows: the bottleneck's, or in a fabric the edge switches
        if (edges == 0)
            qdisc->TraceConnectWithoutContext("GroupChange", MakeCallback(&OnGroupChange));
        for (const auto& lq : leafQdiscs)
            lq->TraceConnectWithoutContext("GroupChange", MakeCallback(&OnGroupChange));
    }
#endif

    std::vector<uint64_t> rxAtWarmup(n, 0);
    QueueDisc::Stats statsAtWarmup;
    bool haveWarmupStats = false;
    Simulator::Schedule(Seconds(warmupS), [&]() {
        for (size_t i = 0; i < n; ++i)
        {
            rxAtWarmup[i] = sinks[i]->GetTotalRx();
        }
        statsAtWarmup = qdisc->GetStats();
        haveWarmupStats = true;
        g_meter.measuring = true;
#ifdef CCFAIR_MODEL
        // the model's diagnostics cover the same window as the queue disc's counters
        if (auto cq = DynamicCast<CcfairQueueDisc>(qdisc))
        {
            cq->ResetDiagnostics();
        }
#endif
    });

    // Per-flow throughput timeline (for plots), sampled from the sinks.
    std::vector<std::vector<double>> timeline(n);
    std::vector<uint64_t> lastRx(n, 0);
    std::function<void()> sample;
    if (timelineMs > 0)
    {
        sample = [&]() {
            for (size_t i = 0; i < n; ++i)
            {
                uint64_t rx = sinks[i]->GetTotalRx();
                timeline[i].push_back((rx - lastRx[i]) * 8.0 / (timelineMs * 1e3));
                lastRx[i] = rx;
            }
            if (Simulator::Now() + MilliSeconds(timelineMs) <= Seconds(durationS))
            {
                Simulator::Schedule(MilliSeconds(timelineMs), sample);
            }
        };
        Simulator::Schedule(MilliSeconds(timelineMs), sample);
    }

    // 1 ns past the end so that the last timeline sample at duration_s still runs.
    Simulator::Stop(Seconds(durationS) + NanoSeconds(1));
    Simulator::Run();

    const QueueDisc::Stats& endStats = qdisc->GetStats();
    uint64_t drops = endStats.nTotalDroppedPackets - (haveWarmupStats ? statsAtWarmup.nTotalDroppedPackets : 0);
    uint64_t marks = endStats.nTotalMarkedPackets - (haveWarmupStats ? statsAtWarmup.nTotalMarkedPackets : 0);
    double p50 = Percentile(g_meter.sojournMs, 0.50);
    double p99 = Percentile(g_meter.sojournMs, 0.99);

    // The ccfair model's diagnostics (drops by reason, marks, packets by group) per flow, by the
    // sender of the flow's first packet; index n: all short flows, n + 1: no known sender.
    std::vector<DiagSum> diag(n + 2);
    bool haveDiag = false;
#ifdef CCFAIR_MODEL
    Ptr<CcfairQueueDisc> ccq = aqm == "ccfair" ? DynamicCast<CcfairQueueDisc>(qdisc) : nullptr;
    if (ccq)
    {
        haveDiag = true;
        for (const auto& [key, d] : ccq->GetPipeline().Diagnostics().flows)
        {
            size_t f = n + 1;
            if (g_meter.shortSrc && d.src == g_meter.shortSrc)
            {
                f = n;
            }
            else if (auto it = g_meter.flowBySrc.find(d.src); it != g_meter.flowBySrc.end())
            {
                f = it->second;
            }
            diag[f].Add(d.pkts, d.pkts_ant, d.pkts_mouse, d.pv, d.limit, d.buffer, d.ss, d.marks);
        }
    }
#endif

    std::ostringstream o;
    o.precision(9);
    o << "{\"ns3\":" << JsonStr(CCFAIR_NS3_VERSION) << ",\"rate_mbps\":" << rateMbps << ",\"measure_s\":" << (durationS - warmupS)
      << ",\"bottleneck_busy_s\":" << g_meter.busyS << ",\"drops\":" << drops
      << ",\"marks\":" << marks << ",\"qdelay_samples\":" << g_meter.sojournMs.size()
      << ",\"tx_packets\":" << g_meter.txAfterWarmup << ",\"max_queued_pkts\":" << g_meter.maxQueued
      << ",\"qdelay_p50_ms\":" << p50 << ",\"qdelay_p99_ms\":" << p99 << ",\"flows\":[";
    for (size_t i = 0; i < n; ++i)
    {
        o << (i ? "," : "") << "{\"type\":" << JsonStr(flows[i].tcpType)
          << ",\"rtt_ms\":" << flows[i].rttMs << ",\"start_s\":" << flows[i].startS
          << ",\"rx_bytes_total\":" << sinks[i]->GetTotalRx()
          << ",\"rx_bytes_measured\":" << (sinks[i]->GetTotalRx() - rxAtWarmup[i])
          << ",\"qdisc_drops\":" << g_meter.qdDrops[i] << ",\"qdisc_marks\":" << g_meter.qdMarks[i];
        if (haveDiag)
        {
            o << ",\"model\":" << diag[i].Json();
        }
        if (timelineMs > 0)
        {
            o << ",\"timeline_mbps\":[";
            for (size_t k = 0; k < timeline[i].size(); ++k)
            {
                o << (k ? "," : "") << timeline[i][k];
            }
            o << "]";
        }
        o << ",\"group_changes\":[";
        bool first = true;
        for (const auto& c : g_meter.changes)
        {
            if (c.flow == i)
            {
                o << (first ? "" : ",") << "[" << c.t << "," << c.oldGroup << "," << c.newGroup << "]";
                first = false;
            }
        }
        o << "]}";
    }
    o << "]";
    if (haveShort)
    {
        o << ",\"short_flows\":{\"type\":" << JsonStr(g_short.spec.tcpType) << ",\"rtt_ms\":" << g_short.spec.rttMs
          << ",\"rx_bytes_measured\":" << g_short.rxMeasured << ",\"qdisc_drops\":" << g_meter.qdDrops[n]
          << ",\"qdisc_marks\":" << g_meter.qdMarks[n];
        if (haveDiag)
        {
            o << ",\"model\":" << diag[n].Json();
        }
        // [start_s, bytes, completion time s or -1 (unfinished)]
        o << ",\"records\":[";
        for (size_t k = 0; k < g_short.flows.size(); ++k)
        {
            const ShortFlow& f = g_short.flows[k];
            o << (k ? "," : "") << "[" << f.startS << "," << f.bytes << "," << (f.doneS < 0 ? -1.0 : f.doneS - f.startS)
              << "]";
        }
        o << "]}";
    }
#ifdef CCFAIR_MODEL
    if (ccq)
    {
        // per queue: [queue, packets, CTV at ctv_lo, at ctv_hi, at either]; R* / fair quantiles
        const ccfair::Pipeline& pipe = ccq->GetPipeline();
        const ccfair::Diag& dg = pipe.Diagnostics();
        o << ",\"ccfair_diag\":{\"unattributed\":" << diag[n + 1].Json()
          << ",\"key_collisions\":" << dg.key_collisions << ",\"queues\":[";
        bool firstQ = true;
        for (size_t q = 0; q < dg.queues.size(); ++q)
        {
            const ccfair::QueueDiag& qd = dg.queues[q];
            if (qd.pkts)
            {
                o << (firstQ ? "" : ",") << "[" << q << "," << qd.pkts << "," << qd.at_lo << "," << qd.at_hi << ","
                  << qd.at_edge << "]";
                firstQ = false;
            }
        }
        const uint64_t rn = pipe.RstarSamples();
        o << "],\"rstar_over_fair\":{\"n\":" << rn << ",\"p10\":" << pipe.RstarOverFair(0.1)
          << ",\"p50\":" << pipe.RstarOverFair(0.5) << ",\"p90\":" << pipe.RstarOverFair(0.9)
          << ",\"mean\":" << (rn ? dg.rstar_sum / double(rn) : 0.0) << "}";
        // the share correction (D13) per group, mean over the measured rounds
        o << ",\"correction_rounds\":" << dg.corr_rounds << ",\"correction_mean_bins\":[";
        for (size_t g = 0; g < dg.corr_sum.size(); ++g)
            o << (g ? "," : "") << (dg.corr_rounds ? dg.corr_sum[g] / double(dg.corr_rounds) : 0.0);
        // the isolated layout's queue moves (D18)
        o << "],\"queue_moves\":" << dg.queue_moves << ",\"queue_moved_flows\":" << dg.queue_moved_flows << "}";
    }
    if (aqm == "ccfair")
    {
        auto cq = DynamicCast<CcfairQueueDisc>(qdisc);
        if (cq)
        {
            o << ",\"model_stats\":" << cq->GetStatsJson();
        }
    }
#endif
    o << "}";
    std::cout << o.str() << std::endl;
    Simulator::Destroy();
    return 0;
}
