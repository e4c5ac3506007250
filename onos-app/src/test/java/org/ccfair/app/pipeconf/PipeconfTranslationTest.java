/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.pipeconf;

import org.ccfair.app.CcfairParams;
import org.ccfair.app.compute.PolicyTable;
import org.ccfair.app.compute.PolicyWrite;
import org.junit.Test;
import org.onlab.packet.Ethernet;
import org.onlab.packet.MacAddress;
import org.onlab.util.ImmutableByteSequence;
import org.onosproject.TestApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.DefaultTrafficSelector;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.criteria.Criterion;
import org.onosproject.net.flowobjective.DefaultForwardingObjective;
import org.onosproject.net.flowobjective.ForwardingObjective;
import org.onosproject.net.pi.model.PiPacketOperationType;
import org.onosproject.net.pi.model.PiPipelineInterpreter;
import org.onosproject.net.pi.runtime.PiAction;
import org.onosproject.net.pi.runtime.PiActionParam;
import org.onosproject.net.pi.runtime.PiPacketMetadata;
import org.onosproject.net.pi.runtime.PiPacketOperation;
import org.onosproject.net.pi.runtime.PiTableEntry;
import org.onosproject.net.packet.InboundPacket;

import java.nio.ByteBuffer;
import java.util.Optional;

import static org.ccfair.app.pipeconf.P4InfoConstants.*;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/**
 * Policy, flow-objective and packet translations against the generated P4Info constants.
 */
public class PipeconfTranslationTest {

    private static final CcfairParams P = CcfairParams.load();
    private static final DeviceId D = DeviceId.deviceId("device:leaf1");

    @Test
    public void policyWritesBecomeTableEntries() throws Exception {
        PolicyTranslator t = new PolicyTranslator(P, "tofino");
        PiTableEntry e = t.entry(new PolicyWrite(PolicyWrite.Op.INSERT, PolicyTable.QUEUE_MAP, new long[]{5, 2, 3},
                                                 new long[]{7}));
        assertEquals(INGRESS_PIPE_QUEUEING_QUEUE_MAP, e.table());
        assertEquals(3, e.matchKey().fieldMatches().size());
        PiAction a = (PiAction) e.action();
        assertEquals(INGRESS_PIPE_QUEUEING_SET_QUEUE, a.id());
        assertEquals(ImmutableByteSequence.copyFrom(7L).fit(8).toString(),
                     a.parameters().iterator().next().value().toString());
        PiTableEntry edge = t.entry(new PolicyWrite(PolicyWrite.Op.INSERT, PolicyTable.INGRESS_PORT, new long[]{1},
                                                    new long[]{P.integer("ports", "role_edge"), 50000}));
        assertEquals(INGRESS_PIPE_PORT_CFG_SET_EDGE_PORT, ((PiAction) edge.action()).id());
        PiTableEntry fabric = t.entry(new PolicyWrite(PolicyWrite.Op.INSERT, PolicyTable.INGRESS_PORT,
                                                      new long[]{1}, new long[]{P.integer("ports", "role_fabric"), 0}));
        assertEquals(INGRESS_PIPE_PORT_CFG_SET_FABRIC_PORT, ((PiAction) fabric.action()).id());
        PiTableEntry aqm = t.entry(new PolicyWrite(PolicyWrite.Op.MODIFY, PolicyTable.AQM, new long[]{1, 0},
                                                   new long[]{5000, 100, 1, 1234, 40000}));
        long cells = (P.integer("policy", "buffer_pkt_bytes") + P.integer("policy", "cell_bytes_tofino") - 1)
                / P.integer("policy", "cell_bytes_tofino");
        PiActionParam limit = ((PiAction) aqm.action()).parameters().stream()
                .filter(x -> x.id().equals(LIMIT_CELLS)).findFirst().get();
        assertEquals(ImmutableByteSequence.copyFrom(100 * cells).fit(LIMIT_CELLS_BITWIDTH), limit.value());
        PiActionParam ctvHi = ((PiAction) aqm.action()).parameters().stream()
                .filter(x -> x.id().equals(CTV_HI)).findFirst().get();
        assertEquals(ImmutableByteSequence.copyFrom(40000L).fit(CTV_HI_BITWIDTH), ctvHi.value());
        PiTableEntry band = t.entry(new PolicyWrite(PolicyWrite.Op.INSERT, PolicyTable.RTT_BAND, new long[]{0, 19999},
                                                    new long[]{0}));
        assertTrue("range tables need a priority", band.priority().isPresent());
        PiTableEntry del = t.entry(new PolicyWrite(PolicyWrite.Op.DELETE, PolicyTable.TVF, new long[]{1, 2, 3},
                                                   new long[0]));
        assertEquals(EGRESS_PIPE_MARKER_TVF, del.table());
        try {
            t.entry(new PolicyWrite(PolicyWrite.Op.INSERT, PolicyTable.QUEUE_MAP, new long[]{5, 2, 3},
                                    new long[]{1 << QID_BITWIDTH}));
            fail("a queue id wider than qid was accepted");
        } catch (IllegalArgumentException expected) {
            assertTrue(expected.getMessage().contains("does not fit"));
        }
    }

    private ForwardingObjective.Builder fwd() {
        return DefaultForwardingObjective.builder().fromApp(TestApplicationId.create("t")).withPriority(40000)
                .withFlag(ForwardingObjective.Flag.VERSATILE).makePermanent();
    }

    @Test
    public void lldpArpPuntsAndL2Forwarding() {
        for (short et : CcfairPipeliner.PUNTED) {
            ForwardingObjective o = fwd().withSelector(DefaultTrafficSelector.builder().matchEthType(et).build())
                    .withTreatment(DefaultTrafficTreatment.builder().punt().build()).add();
            FlowRule r = CcfairPipeliner.translate(D, o).get();
            assertEquals(INGRESS_PIPE_ACL_ACL, r.table());
            assertEquals(INGRESS_PIPE_ACL_PUNT_TO_CPU,
                         ((PiAction) r.treatment().allInstructions().stream()
                                 .map(i -> ((org.onosproject.net.flow.instructions.PiInstruction) i).action())
                                 .findFirst().get()).id());
            assertEquals(40000, r.priority());
        }
        ForwardingObjective l2 = fwd().withSelector(DefaultTrafficSelector.builder()
                                                            .matchEthDst(MacAddress.valueOf("00:00:00:00:00:02"))
                                                            .build())
                .withTreatment(DefaultTrafficTreatment.builder().setOutput(PortNumber.portNumber(3)).build()).add();
        FlowRule r = CcfairPipeliner.translate(D, l2).get();
        assertEquals(INGRESS_PIPE_FORWARDING_L2_EXACT, r.table());
        ForwardingObjective ipv6 = fwd().withSelector(DefaultTrafficSelector.builder().matchEthType((short) 0x86dd)
                                                              .matchIPProtocol((byte) 58).build())
                .withTreatment(DefaultTrafficTreatment.builder().punt().build()).add();
        assertFalse("unsupported objectives are refused, not guessed", CcfairPipeliner.translate(D, ipv6)
                .isPresent());
    }

    @Test
    public void interpreterPacketIoAndMappings() throws Exception {
        CcfairInterpreter i = new CcfairInterpreter.Tofino();
        assertEquals(P.integer("cpu", "port_tofino"), i.cpuPort());
        assertEquals(P.integer("cpu", "port_tofino2"), new CcfairInterpreter.Tofino2().cpuPort());
        assertEquals(Optional.of(HDR_ETH_TYPE), i.mapCriterionType(Criterion.Type.ETH_TYPE));
        assertEquals(Optional.of(INGRESS_PIPE_ACL_ACL), i.mapFlowRuleTableId(0));
        assertEquals(INGRESS_PIPE_ACL_PUNT_TO_CPU, i.mapTreatment(DefaultTrafficTreatment.builder().punt().build(),
                                                                  INGRESS_PIPE_ACL_ACL).id());
        try {
            i.mapTreatment(DefaultTrafficTreatment.builder().setOutput(PortNumber.portNumber(2)).build(),
                           INGRESS_PIPE_ACL_ACL);
            fail("ACL output to a port accepted");
        } catch (PiPipelineInterpreter.PiInterpreterException expected) {
            assertTrue(expected.getMessage().contains("only punt"));
        }
        Ethernet eth = new Ethernet().setSourceMACAddress("00:00:00:00:00:01")
                .setDestinationMACAddress("00:00:00:00:00:02").setEtherType((short) 0x1234);
        eth.setPayload(new org.onlab.packet.Data(new byte[46]));
        byte[] frame = eth.serialize();
        PiPacketOperation out = i.packetOut(ByteBuffer.wrap(frame), 7);
        assertEquals(PiPacketOperationType.PACKET_OUT, out.type());
        assertEquals(EGRESS_PORT, out.metadatas().iterator().next().id());
        PiPacketOperation in = PiPacketOperation.builder().withType(PiPacketOperationType.PACKET_IN)
                .withData(ImmutableByteSequence.copyFrom(frame))
                .withMetadata(PiPacketMetadata.builder().withId(INGRESS_PORT)
                                      .withValue(ImmutableByteSequence.copyFrom((short) 9)).build()).build();
        InboundPacket p = i.mapInboundPacket(in, D);
        assertEquals(PortNumber.portNumber(9), p.receivedFrom().port());
        assertEquals((short) 0x1234, p.parsed().getEtherType());
        assertEquals(frame.length, p.unparsed().remaining());
    }
}
