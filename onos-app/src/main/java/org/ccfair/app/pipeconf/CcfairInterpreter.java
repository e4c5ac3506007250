/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.pipeconf;

import com.google.common.collect.ImmutableMap;
import org.ccfair.app.CcfairParams;
import org.onlab.packet.DeserializationException;
import org.onlab.packet.Ethernet;
import org.onlab.util.ImmutableByteSequence;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.Port;
import org.onosproject.net.PortNumber;
import org.onosproject.net.device.DeviceService;
import org.onosproject.net.driver.AbstractHandlerBehaviour;
import org.onosproject.net.flow.TrafficTreatment;
import org.onosproject.net.flow.criteria.Criterion;
import org.onosproject.net.flow.instructions.Instruction;
import org.onosproject.net.flow.instructions.Instructions;
import org.onosproject.net.packet.DefaultInboundPacket;
import org.onosproject.net.packet.InboundPacket;
import org.onosproject.net.packet.OutboundPacket;
import org.onosproject.net.pi.model.PiMatchFieldId;
import org.onosproject.net.pi.model.PiPacketOperationType;
import org.onosproject.net.pi.model.PiPipelineInterpreter;
import org.onosproject.net.pi.model.PiTableId;
import org.onosproject.net.pi.runtime.PiAction;
import org.onosproject.net.pi.runtime.PiActionParam;
import org.onosproject.net.pi.runtime.PiPacketMetadata;
import org.onosproject.net.pi.runtime.PiPacketOperation;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.ccfair.app.pipeconf.P4InfoConstants.*;

/**
 * Interpreter of the ccfair program: packet-in/out through the controller
 * headers of docs/dataplane.md, the CPU port of the profile (params
 * cpu.port_*), ONOS criteria to match fields, and flow-rule treatments to
 * the ACL and L2 actions.
 */
public class CcfairInterpreter extends AbstractHandlerBehaviour implements PiPipelineInterpreter {

    /** Flow rules with table id 0 (ONOS apps that know no pipeline) go to the ACL. */
    static final Map<Integer, PiTableId> TABLES = ImmutableMap.of(
            0, INGRESS_PIPE_ACL_ACL, 1, INGRESS_PIPE_FORWARDING_L2_EXACT);

    private static final Map<Criterion.Type, PiMatchFieldId> CRITERIA = ImmutableMap.<Criterion.Type, PiMatchFieldId>
            builder()
            .put(Criterion.Type.IN_PORT, HDR_IG_PORT)
            .put(Criterion.Type.ETH_SRC, HDR_ETH_SRC)
            .put(Criterion.Type.ETH_DST, HDR_ETH_DST)
            .put(Criterion.Type.ETH_TYPE, HDR_ETH_TYPE)
            .put(Criterion.Type.IP_PROTO, HDR_IP_PROTO)
            .put(Criterion.Type.IPV4_DST, HDR_IPV4_DST)
            .put(Criterion.Type.TCP_SRC, HDR_L4_SPORT)
            .put(Criterion.Type.TCP_DST, HDR_L4_DPORT)
            .put(Criterion.Type.UDP_SRC, HDR_L4_SPORT)
            .put(Criterion.Type.UDP_DST, HDR_L4_DPORT)
            .build();

    private final long cpuPort;

    /**
     * Creates an interpreter.
     *
     * @param cpuPort CPU port of the profile
     */
    protected CcfairInterpreter(long cpuPort) {
        this.cpuPort = cpuPort;
    }

    /** Tofino 1 profile (CPU port cpu.port_tofino). */
    public static class Tofino extends CcfairInterpreter {
        /** Creates the interpreter. */
        public Tofino() {
            super(CcfairParams.load().integer("cpu", "port_tofino"));
        }
    }

    /** Tofino 2 profile (CPU port cpu.port_tofino2). */
    public static class Tofino2 extends CcfairInterpreter {
        /** Creates the interpreter. */
        public Tofino2() {
            super(CcfairParams.load().integer("cpu", "port_tofino2"));
        }
    }

    /**
     * CPU port of this profile.
     *
     * @return port number
     */
    public long cpuPort() {
        return cpuPort;
    }

    @Override
    public Optional<PiMatchFieldId> mapCriterionType(Criterion.Type type) {
        return Optional.ofNullable(CRITERIA.get(type));
    }

    @Override
    public Optional<PiTableId> mapFlowRuleTableId(int flowRuleTableId) {
        return Optional.ofNullable(TABLES.get(flowRuleTableId));
    }

    @Override
    public Optional<Integer> mapLogicalPortNumber(PortNumber port) {
        return PortNumber.CONTROLLER.equals(port) ? Optional.of((int) cpuPort) : Optional.empty();
    }

    @Override
    public PiAction mapTreatment(TrafficTreatment treatment, PiTableId tableId) throws PiInterpreterException {
        List<Instruction> ins = treatment.allInstructions();
        if (ins.isEmpty()) {
            return PiAction.builder().withId(INGRESS_PIPE_ACL_ACL.equals(tableId)
                                                     ? INGRESS_PIPE_ACL_DROP : INGRESS_PIPE_FORWARDING_DROP).build();
        }
        if (ins.size() != 1 || ins.get(0).type() != Instruction.Type.OUTPUT) {
            throw new PiInterpreterException("ccfair: only a single OUTPUT (or nothing = drop) is supported, got "
                                                     + ins);
        }
        PortNumber out = ((Instructions.OutputInstruction) ins.get(0)).port();
        if (INGRESS_PIPE_ACL_ACL.equals(tableId)) {
            if (PortNumber.CONTROLLER.equals(out)) {
                return PiAction.builder().withId(INGRESS_PIPE_ACL_PUNT_TO_CPU).build();
            }
            throw new PiInterpreterException("ccfair: the ACL can only punt to the controller, not output to " + out);
        }
        if (INGRESS_PIPE_FORWARDING_L2_EXACT.equals(tableId)) {
            if (out.isLogical()) {
                throw new PiInterpreterException("ccfair: l2_exact needs a physical port, got " + out);
            }
            try {
                return PiAction.builder().withId(INGRESS_PIPE_FORWARDING_SET_EGRESS_PORT)
                        .withParameter(new PiActionParam(PORT, ImmutableByteSequence.copyFrom(out.toLong())
                                .fit(PORT_BITWIDTH > 0 ? PORT_BITWIDTH : 32))).build();
            } catch (ImmutableByteSequence.ByteSequenceTrimException e) {
                throw new PiInterpreterException("ccfair: port " + out + " does not fit set_egress_port.port");
            }
        }
        throw new PiInterpreterException("ccfair: no treatment mapping for table " + tableId);
    }

    @Override
    public Collection<PiPacketOperation> mapOutboundPacket(OutboundPacket packet) throws PiInterpreterException {
        List<PiPacketOperation> ops = new ArrayList<>();
        for (Instructions.OutputInstruction o : outputs(packet.treatment())) {
            if (PortNumber.FLOOD.equals(o.port()) || PortNumber.ALL.equals(o.port())) {
                DeviceService ds = handler().get(DeviceService.class);
                for (Port p : ds.getPorts(packet.sendThrough())) {
                    if (p.isEnabled() && !p.number().isLogical() && p.number().toLong() != cpuPort) {
                        ops.add(packetOut(packet.data(), p.number().toLong()));
                    }
                }
            } else if (o.port().isLogical()) {
                throw new PiInterpreterException("ccfair: cannot send a packet out of logical port " + o.port());
            } else {
                ops.add(packetOut(packet.data(), o.port().toLong()));
            }
        }
        return ops;
    }

    private static List<Instructions.OutputInstruction> outputs(TrafficTreatment t) throws PiInterpreterException {
        List<Instructions.OutputInstruction> out = new ArrayList<>();
        for (Instruction i : t.allInstructions()) {
            if (i.type() != Instruction.Type.OUTPUT) {
                throw new PiInterpreterException("ccfair: packet-out supports OUTPUT only, got " + i);
            }
            out.add((Instructions.OutputInstruction) i);
        }
        return out;
    }

    /**
     * A packet-out to one port.
     *
     * @param data frame
     * @param port egress port
     * @return operation
     * @throws PiInterpreterException if the port does not fit the header field
     */
    PiPacketOperation packetOut(ByteBuffer data, long port) throws PiInterpreterException {
        try {
            int width = EGRESS_PORT_BITWIDTH > 0 ? EGRESS_PORT_BITWIDTH : 32;
            return PiPacketOperation.builder().withType(PiPacketOperationType.PACKET_OUT)
                    .withData(ImmutableByteSequence.copyFrom(data.duplicate().rewind()))
                    .withMetadata(PiPacketMetadata.builder().withId(EGRESS_PORT)
                                          .withValue(ImmutableByteSequence.copyFrom(port).fit(width)).build())
                    .build();
        } catch (ImmutableByteSequence.ByteSequenceTrimException e) {
            throw new PiInterpreterException("ccfair: port " + port + " does not fit packet_out.egress_port");
        }
    }

    @Override
    public InboundPacket mapInboundPacket(PiPacketOperation op, DeviceId deviceId) throws PiInterpreterException {
        Optional<PiPacketMetadata> in = op.metadatas().stream().filter(m -> INGRESS_PORT.equals(m.id())).findFirst();
        if (in.isEmpty()) {
            throw new PiInterpreterException("ccfair: packet-in without ingress_port metadata");
        }
        ImmutableByteSequence v = in.get().value();
        long port = 0;
        for (byte b : v.asArray()) {
            port = (port << 8) | (b & 0xff);
        }
        byte[] data = op.data().asArray();
        Ethernet eth;
        try {
            eth = Ethernet.deserializer().deserialize(data, 0, data.length);
        } catch (DeserializationException e) {
            throw new PiInterpreterException("ccfair: packet-in is not an Ethernet frame: " + e.getMessage());
        }
        return new DefaultInboundPacket(new ConnectPoint(deviceId, PortNumber.portNumber(port)), eth,
                                        ByteBuffer.wrap(data));
    }
}
