// SPDX-License-Identifier: Apache-2.0
#include "ccfair-queue-disc.h"

#include "ccfair-params.h"
#include "pipeline.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/object-factory.h"
#include "ns3/ipv4-queue-disc-item.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/tcp-header.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CcfairQueueDisc");
NS_OBJECT_ENSURE_REGISTERED(CcfairQueueDisc);
NS_OBJECT_ENSURE_REGISTERED(CcfairShimTag);

TypeId
CcfairShimTag::GetTypeId()
{
    static TypeId tid = TypeId("ns3::CcfairShimTag").SetParent<Tag>().AddConstructor<CcfairShimTag>();
    return tid;
}

TypeId
CcfairShimTag::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
CcfairShimTag::GetSerializedSize() const
{
    return 4;
}

void
CcfairShimTag::Serialize(TagBuffer i) const
{
    i.WriteU16(pv);
    i.WriteU8(group);
    i.WriteU8(slot);
}

void
CcfairShimTag::Deserialize(TagBuffer i)
{
    pv = i.ReadU16();
    group = i.ReadU8();
    slot = i.ReadU8();
}

void
CcfairShimTag::Print(std::ostream& os) const
{
    os << "pv=" << pv << " group=" << unsigned(group) << " slot=" << unsigned(slot);
}

namespace P = ccfair::params;

TypeId
CcfairQueueDisc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CcfairQueueDisc")
            .SetParent<QueueDisc>()
            .SetGroupName("TrafficControl")
            .AddConstructor<CcfairQueueDisc>()
            .AddAttribute("MaxSize",
                          "Shared buffer of the port (packets); each queue also has its Cocoa limit.",
                          QueueSizeValue(QueueSize("25000p")),
                          MakeQueueSizeAccessor(&QueueDisc::SetMaxSize, &QueueDisc::GetMaxSize),
                          MakeQueueSizeChecker())
            .AddAttribute("LinkRate",
                          "Bottleneck rate (fair BDP and fair rate of the controller).",
                          DataRateValue(DataRate("100Mbps")),
                          MakeDataRateAccessor(&CcfairQueueDisc::m_linkRate),
                          MakeDataRateChecker())
            .AddAttribute("TargetDelay",
                          "Target queuing delay of the per-queue CTV control (params aqm.target_delay_us; "
                          "its microseconds are written as 1.024 us units, as the ONOS app does).",
                          TimeValue(MicroSeconds(P::AQM_TARGET_DELAY_US)),
                          MakeTimeAccessor(&CcfairQueueDisc::m_targetDelay),
                          MakeTimeChecker())
            .AddAttribute("UseEcn",
                          "CE-mark ECN-capable packets instead of dropping them (params aqm.ecn).",
                          BooleanValue(P::AQM_ECN != 0),
                          MakeBooleanAccessor(&CcfairQueueDisc::m_useEcn),
                          MakeBooleanChecker())
            .AddAttribute("PvAqm",
                          "Run the packet-value AQM (PV < CTV -> drop/mark), as the P4 program always does. "
                          "false leaves isolation + DRR + Cocoa only (docs/eval-model.md, tuning 6).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&CcfairQueueDisc::m_pvAqm),
                          MakeBooleanChecker())
            .AddAttribute("ControllerPeriod",
                          "Period of the emulated controller loop (queue allocation, fair rate, RTT bands).",
                          TimeValue(MilliSeconds(100)),
                          MakeTimeAccessor(&CcfairQueueDisc::m_controllerPeriod),
                          MakeTimeChecker())
            .AddAttribute("MM",
                          "The loss-ignoring count at which a flow is model-based (params classifier.m_m).",
                          UintegerValue(P::CLASSIFIER_M_M),
                          MakeUintegerAccessor(&CcfairQueueDisc::m_mM),
                          MakeUintegerChecker<uint32_t>(1, 255))
            .AddAttribute("NumQueues",
                          "Queues per port (params queues.per_port).",
                          UintegerValue(P::QUEUES_PER_PORT),
                          MakeUintegerAccessor(&CcfairQueueDisc::m_numQueues),
                          MakeUintegerChecker<uint32_t>(3, 64))
            .AddAttribute("FlowTableSize",
                          "Flow-table slots (power of two); default: one Tofino pipe's table (params targets.profiles.tofino.flows_per_pipe).",
                          UintegerValue(P::FLOWS_PER_PIPE_TOFINO),
                          MakeUintegerAccessor(&CcfairQueueDisc::m_flowTableSize),
                          MakeUintegerChecker<uint32_t>(1, 1u << 20))
            .AddAttribute("Quantum",
                          "DRR quantum in bytes (equal for every queue).",
                          UintegerValue(1514),
                          MakeUintegerAccessor(&CcfairQueueDisc::m_quantum),
                          MakeUintegerChecker<uint32_t>(64))
            .AddAttribute("QueueLayout",
                          "The emulated controller's queue layout: shared (every long-lived group in one "
                          "queue) or isolated (per-group queues); empty = params queues.layout.",
                          StringValue(""),
                          MakeStringAccessor(&CcfairQueueDisc::m_queueLayout),
                          MakeStringChecker())
            .AddAttribute("Weights",
                          "The emulated controller's intent: weighted-groups weights as family:weight,... "
                          "(families of params groups.families, unlisted ones 1); empty = per-flow.",
                          StringValue(""),
                          MakeStringAccessor(&CcfairQueueDisc::m_weights),
                          MakeStringChecker())
            .AddAttribute("FabricArrivals",
                          "Packets arrive on a fabric port: the program trusts the shim (here a "
                          "CcfairShimTag) for group, slot and PV and tracks nothing; a packet without "
                          "one is refused as misconfigured.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&CcfairQueueDisc::m_fabricArrivals),
                          MakeBooleanChecker())
            .AddAttribute("PushShim",
                          "The port faces the fabric: a forwarded packet leaves with its shim "
                          "(CcfairShimTag: the PV egress gave it, its group and slot).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&CcfairQueueDisc::m_pushShim),
                          MakeBooleanChecker())
            .AddTraceSource("GroupChange",
                            "A flow was reclassified (first report of a flow: ant -> mouse).",
                            MakeTraceSourceAccessor(&CcfairQueueDisc::m_groupChange),
                            "ns3::CcfairQueueDisc::GroupChangeCallback");
    return tid;
}

CcfairQueueDisc::CcfairQueueDisc()
    : QueueDisc(QueueDiscSizePolicy::MULTIPLE_QUEUES, QueueSizeUnit::PACKETS)
{
    m_rng = CreateObject<UniformRandomVariable>();
}

CcfairQueueDisc::~CcfairQueueDisc() = default;

const ccfair::Pipeline&
CcfairQueueDisc::GetPipeline() const
{
    return *m_pipe;
}

void
CcfairQueueDisc::ResetDiagnostics()
{
    if (m_pipe)
        m_pipe->ResetDiag();
}

uint64_t
CcfairQueueDisc::NowNs() const
{
    return uint64_t(Simulator::Now().GetNanoSeconds());
}

bool
CcfairQueueDisc::CheckConfig()
{
    if (GetNQueueDiscClasses() > 0 || GetNInternalQueues() > 0 || GetNPacketFilters() > 0)
    {
        NS_LOG_ERROR("CcfairQueueDisc makes its own internal queues; no classes, queues or filters");
        return false;
    }
    if (m_flowTableSize & (m_flowTableSize - 1))
    {
        NS_LOG_ERROR("FlowTableSize must be a power of two");
        return false;
    }
    if (m_linkRate.GetBitRate() == 0)
    {
        NS_LOG_ERROR("LinkRate must be > 0");
        return false;
    }
    if (!m_queueLayout.empty() && m_queueLayout != "shared" && m_queueLayout != "isolated")
    {
        NS_LOG_ERROR("QueueLayout must be shared or isolated, got " << m_queueLayout);
        return false;
    }
    try
    {
        ccfair::ParseFamilyWeights(m_weights, "Weights");
    }
    catch (const std::invalid_argument& e)
    {
        NS_LOG_ERROR(e.what());
        return false;
    }
    // One internal FIFO per ccfair queue, in the pipeline's queue order. Their own limit is
    // the shared buffer: the pipeline's per-queue (Cocoa) limits decide drops before them.
    ObjectFactory factory;
    factory.SetTypeId("ns3::DropTailQueue<QueueDiscItem>");
    factory.Set("MaxSize", QueueSizeValue(GetMaxSize()));
    for (uint32_t q = 0; q < m_numQueues; ++q)
    {
        AddInternalQueue(factory.Create<InternalQueue>());
    }
    return true;
}

void
CcfairQueueDisc::InitializeParams()
{
    ccfair::Config c = ccfair::Config::Defaults();
    c.link_rate_bps = m_linkRate.GetBitRate();
    // aqm_cfg's target, as the ONOS app writes it: the number of microseconds as 1.024 us units
    c.target_delay_units = uint32_t(m_targetDelay.GetMicroSeconds());
    c.ecn = m_useEcn;
    c.pv_aqm = m_pvAqm;
    c.m_m = m_mM;
    c.num_queues = m_numQueues;
    c.flow_table_size = m_flowTableSize;
    c.quantum_bytes = m_quantum;
    c.buffer_pkts = GetMaxSize().GetValue();
    if (!m_queueLayout.empty())
        c.queue_layout = ccfair::ParseQueueLayout(m_queueLayout, "QueueLayout");
    c.family_weights = ccfair::ParseFamilyWeights(m_weights, "Weights");
    m_pipe = std::make_unique<ccfair::Pipeline>(c, 1 + m_rng->GetInteger(0, 0x7fffffff));
    m_pipe->onGroupChange = [this](uint32_t src, uint16_t sport, uint32_t dst, uint16_t dport, uint8_t o,
                                   uint8_t n) { m_groupChange(Ipv4Address(src), sport, Ipv4Address(dst), dport, o, n); };
    m_controllerEvent = Simulator::Schedule(m_controllerPeriod, &CcfairQueueDisc::ControllerTick, this);
}

void
CcfairQueueDisc::AddFabricPeer(Ptr<CcfairQueueDisc> peer)
{
    m_peers.push_back(peer);
}

void
CcfairQueueDisc::ControllerTick()
{
    if (!m_peers.empty())
    {
        std::vector<uint32_t> n;
        for (const auto& peer : m_peers)
        {
            if (!peer->m_pipe)
                continue;
            const std::vector<uint32_t> a = peer->m_pipe->ActiveFlows();
            n.resize(std::max(n.size(), a.size()), 0);
            for (size_t g = 0; g < a.size(); ++g)
                n[g] += a[g];
        }
        m_pipe->SetFabricFlows(std::move(n));
    }
    m_pipe->ControllerTick(NowNs());
    m_controllerEvent = Simulator::Schedule(m_controllerPeriod, &CcfairQueueDisc::ControllerTick, this);
}

bool
CcfairQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
    ccfair::Pkt p;
    p.t_ns = NowNs();
    p.size = item->GetSize();
    p.tcp = false;
    Ptr<Ipv4QueueDiscItem> ip = DynamicCast<Ipv4QueueDiscItem>(item);
    if (ip)
    {
        const Ipv4Header& h = ip->GetHeader();
        p.src = h.GetSource().Get();
        p.dst = h.GetDestination().Get();
        p.ect = h.GetEcn() != Ipv4Header::ECN_NotECT;
        TcpHeader tcp;
        if (h.GetProtocol() == 6 && h.GetFragmentOffset() == 0 &&
            ip->GetPacket()->PeekHeader(tcp) >= 20)
        {
            p.tcp = true;
            p.sport = tcp.GetSourcePort();
            p.dport = tcp.GetDestinationPort();
            p.flags = tcp.GetFlags();
            p.seq = tcp.GetSequenceNumber().GetValue();
            uint32_t hl = tcp.GetSerializedSize();
            uint32_t l4 = ip->GetPacket()->GetSize();
            p.payload = l4 > hl ? l4 - hl : 0;
        }
    }
    if (m_fabricArrivals)
    {
        CcfairShimTag shim;
        NS_ABORT_MSG_IF(!item->GetPacket()->PeekPacketTag(shim),
                        "FabricArrivals: a packet without the ccfair shim (no ingress edge before this switch)");
        p.from_fabric = true;
        p.shim_pv = shim.pv;
        p.shim_group = shim.group;
        p.shim_slot = shim.slot;
    }
    p.rand16 = uint16_t(m_rng->GetInteger(1, 65535));
    ccfair::EnqResult r = m_pipe->Enqueue(p);
    switch (r.verdict)
    {
    case ccfair::Verdict::ENQUEUED:
        // Cannot fail: the pipeline admits at most MaxSize packets in all queues together.
        NS_ABORT_MSG_IF(!GetInternalQueue(r.queue)->Enqueue(item),
                        "internal queue " << r.queue << " refused a packet the pipeline admitted");
        return true;
    case ccfair::Verdict::DROP_BUFFER:
    default:
        DropBeforeEnqueue(item, "ccfair port buffer full");
        return false;
    }
}

Ptr<QueueDiscItem>
CcfairQueueDisc::DoDequeue()
{
    const uint64_t now = NowNs();
    for (;;)
    {
        ccfair::DeqResult r = m_pipe->Dequeue(now);
        if (!r.valid)
            return nullptr;
        Ptr<QueueDiscItem> item = GetInternalQueue(r.queue)->Dequeue();
        NS_ABORT_MSG_IF(!item, "pipeline and internal queue " << r.queue << " disagree");
        // Every drop of the program happens in egress, after the TM queued the packet.
        if (r.action == ccfair::Action::DROP_PV)
        {
            DropAfterDequeue(item, "ccfair PV below CTV");
            continue;
        }
        if (r.action == ccfair::Action::DROP_LIMIT)
        {
            DropAfterDequeue(item, "ccfair queue limit");
            continue;
        }
        if (r.action == ccfair::Action::DROP_PROACTIVE)
        {
            DropAfterDequeue(item, "ccfair slow-start proactive drop");
            continue;
        }
        if (r.action == ccfair::Action::MARK && !Mark(item, "ccfair PV below CTV"))
        {
            DropAfterDequeue(item, "ccfair PV below CTV");
            continue;
        }
        if (m_pushShim)
        {
            CcfairShimTag shim;
            shim.pv = r.pv;
            shim.group = r.group;
            shim.slot = r.slot;
            item->GetPacket()->ReplacePacketTag(shim);
        }
        return item;
    }
}

void
CcfairQueueDisc::DoDispose()
{
    m_controllerEvent.Cancel();
    m_pipe.reset();
    QueueDisc::DoDispose();
}

int
CcfairQueueDisc::GetFlowGroup(Ipv4Address src, uint16_t sport, Ipv4Address dst, uint16_t dport) const
{
    return m_pipe ? m_pipe->GroupOf(src.Get(), sport, dst.Get(), dport) : -1;
}

std::string
CcfairQueueDisc::GetStatsJson() const
{
    return m_pipe ? m_pipe->StatsJson() : std::string("{}");
}

} // namespace ns3
