// SPDX-License-Identifier: Apache-2.0
// ns-3 adapter around the ns-3-free ccfair pipeline (pipeline.h). Install on the
// bottleneck device (router -> receiver direction):
//   TrafficControlHelper tch; tch.SetRootQueueDisc("ns3::CcfairQueueDisc",
//       "LinkRate", DataRateValue(DataRate("100Mbps")));
// The adapter only parses headers, keeps the packets in the queue disc's own internal
// queues (one per ccfair queue, so QueueDisc's accounting sees every packet) and runs the
// emulated controller loop; every decision is taken by ccfair::Pipeline.
#pragma once

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/queue-disc.h"
#include "ns3/random-variable-stream.h"
#include "ns3/tag.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ccfair
{
class Pipeline;
}

namespace ns3
{

/** The ccfair shim (PV, group, slot) a switch's egress leaves a packet with, carried to the
 *  next switch as a packet tag (the program carries it as a header, p4/shared/header.p4). */
class CcfairShimTag : public Tag
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(TagBuffer i) const override;
    void Deserialize(TagBuffer i) override;
    void Print(std::ostream& os) const override;

    uint16_t pv = 0;
    uint8_t group = 0, slot = 0;
};

class CcfairQueueDisc : public QueueDisc
{
  public:
    static TypeId GetTypeId();
    CcfairQueueDisc();
    ~CcfairQueueDisc() override;

    /** Group id (params GROUP_*) of the flow, either direction of the 4-tuple; -1 if untracked. */
    int GetFlowGroup(Ipv4Address src, uint16_t sport, Ipv4Address dst, uint16_t dport) const;

    /** Counters per group (pkts, bytes, drops, marks, active flows) and per queue (CTV, max delay, limit). */
    std::string GetStatsJson() const;

    /** Signature of the "GroupChange" trace source, fired on every reclassification. */
    typedef void (*GroupChangeCallback)(Ipv4Address src,
                                        uint16_t sport,
                                        Ipv4Address dst,
                                        uint16_t dport,
                                        uint8_t oldGroup,
                                        uint8_t newGroup);

    /** Direct access for tests and the runner (read-only use). */
    const ccfair::Pipeline& GetPipeline() const;

    /** Start a new window of the model's diagnostics (drops by reason, CTV at its range edge,
     *  R* against the fair rate; Pipeline::ResetDiag). The simulator calls it at warm-up. */
    void ResetDiagnostics();

    /** Another switch of the fabric whose counted flows this one's controller adds to its own
     *  (the ONOS app compiles every device from one view of the fabric's statistics; D22). */
    void AddFabricPeer(Ptr<CcfairQueueDisc> peer);

  private:
    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    bool CheckConfig() override;
    void InitializeParams() override;
    void DoDispose() override;

    void ControllerTick();
    uint64_t NowNs() const;

    // attributes
    DataRate m_linkRate;
    Time m_targetDelay;
    bool m_useEcn;
    bool m_pvAqm;
    Time m_controllerPeriod;
    uint32_t m_mM;
    uint32_t m_numQueues;
    uint32_t m_flowTableSize;
    uint32_t m_quantum;
    std::string m_queueLayout;
    std::string m_weights; // the intent's weighted-groups weights, "family:w,..." ("" = per-flow)
    bool m_fabricArrivals; // every packet arrives on a fabric port (reads the shim tag)
    bool m_pushShim;       // the egress port faces the fabric: packets leave with the shim tag

    std::unique_ptr<ccfair::Pipeline> m_pipe;
    Ptr<UniformRandomVariable> m_rng;
    EventId m_controllerEvent;
    std::vector<Ptr<CcfairQueueDisc>> m_peers;
    TracedCallback<Ipv4Address, uint16_t, Ipv4Address, uint16_t, uint8_t, uint8_t> m_groupChange;
};

} // namespace ns3
