/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.pipeconf;

import com.google.common.collect.ImmutableList;
import org.onlab.packet.Ethernet;
import org.onlab.packet.MacAddress;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.behaviour.NextGroup;
import org.onosproject.net.behaviour.Pipeliner;
import org.onosproject.net.behaviour.PipelinerContext;
import org.onosproject.net.driver.AbstractHandlerBehaviour;
import org.onosproject.net.flow.DefaultFlowRule;
import org.onosproject.net.flow.DefaultTrafficSelector;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleOperations;
import org.onosproject.net.flow.FlowRuleOperationsContext;
import org.onosproject.net.flow.FlowRuleService;
import org.onosproject.net.flow.criteria.Criterion;
import org.onosproject.net.flow.criteria.EthCriterion;
import org.onosproject.net.flow.criteria.EthTypeCriterion;
import org.onosproject.net.flow.criteria.PiCriterion;
import org.onosproject.net.flow.instructions.Instruction;
import org.onosproject.net.flow.instructions.Instructions;
import org.onosproject.net.flowobjective.FilteringObjective;
import org.onosproject.net.flowobjective.ForwardingObjective;
import org.onosproject.net.flowobjective.NextObjective;
import org.onosproject.net.flowobjective.Objective;
import org.onosproject.net.flowobjective.ObjectiveError;
import org.onosproject.net.pi.runtime.PiAction;
import org.onosproject.net.pi.runtime.PiActionParam;

import java.util.List;
import java.util.Optional;

import static org.ccfair.app.pipeconf.P4InfoConstants.*;

/**
 * Maps ONOS flow objectives onto the ccfair program so ONOS's own apps work
 * on a ccfair fabric: punts to the controller (lldpprovider's LLDP/BDDP,
 * hostprovider's ARP, any eth_type punt) become ACL entries, and
 * forwarding objectives on eth_dst with one output port (fwd) become
 * l2_exact entries. Filtering objectives need nothing (every port accepts
 * traffic); next objectives are not supported (the program has no groups).
 */
public class CcfairPipeliner extends AbstractHandlerBehaviour implements Pipeliner {

    private DeviceId deviceId;
    private FlowRuleService flowRuleService;

    @Override
    public void init(DeviceId device, PipelinerContext context) {
        this.deviceId = device;
        this.flowRuleService = context.directory().get(FlowRuleService.class);
    }

    @Override
    public void filter(FilteringObjective obj) {
        obj.context().ifPresent(c -> c.onSuccess(obj));
    }

    @Override
    public void forward(ForwardingObjective obj) {
        Optional<FlowRule> rule;
        try {
            rule = translate(deviceId, obj);
        } catch (IllegalArgumentException e) {
            fail(obj, ObjectiveError.BADPARAMS);
            return;
        }
        if (rule.isEmpty()) {
            fail(obj, ObjectiveError.UNSUPPORTED);
            return;
        }
        FlowRuleOperations.Builder ops = FlowRuleOperations.builder();
        if (obj.op() == Objective.Operation.REMOVE) {
            ops.remove(rule.get());
        } else {
            ops.add(rule.get());
        }
        flowRuleService.apply(ops.build(new FlowRuleOperationsContext() {
            @Override
            public void onSuccess(FlowRuleOperations o) {
                obj.context().ifPresent(c -> c.onSuccess(obj));
            }

            @Override
            public void onError(FlowRuleOperations o) {
                fail(obj, ObjectiveError.FLOWINSTALLATIONFAILED);
            }
        }));
    }

    private static void fail(Objective obj, ObjectiveError e) {
        obj.context().ifPresent(c -> c.onError(obj, e));
    }

    /**
     * The flow rule for a forwarding objective.
     *
     * @param device device
     * @param obj    objective
     * @return the rule, or empty if the objective has no mapping on this program
     */
    static Optional<FlowRule> translate(DeviceId device, ForwardingObjective obj) {
        if (obj.treatment() == null) {
            return Optional.empty();
        }
        List<Instruction> ins = obj.treatment().allInstructions();
        Optional<PortNumber> out = ins.size() == 1 && ins.get(0).type() == Instruction.Type.OUTPUT
                ? Optional.of(((Instructions.OutputInstruction) ins.get(0)).port()) : Optional.empty();
        EthTypeCriterion ethType = (EthTypeCriterion) obj.selector().getCriterion(Criterion.Type.ETH_TYPE);
        EthCriterion ethDst = (EthCriterion) obj.selector().getCriterion(Criterion.Type.ETH_DST);
        FlowRule.Builder rule = DefaultFlowRule.builder().forDevice(device).fromApp(obj.appId())
                .withPriority(obj.priority());
        if (obj.permanent()) {
            rule.makePermanent();
        } else {
            rule.makeTemporary(obj.timeout());
        }
        if (out.isPresent() && PortNumber.CONTROLLER.equals(out.get()) && ethType != null
                && obj.selector().criteria().size() == 1) {
            // Punt by ethertype: LLDP, BDDP, ARP (the program's ACL wins over forwarding).
            PiCriterion match = PiCriterion.builder()
                    .matchTernary(HDR_ETH_TYPE, ethType.ethType().toShort() & 0xffff, 0xffff).build();
            return Optional.of(rule.forTable(INGRESS_PIPE_ACL_ACL)
                                       .withSelector(DefaultTrafficSelector.builder().matchPi(match).build())
                                       .withTreatment(DefaultTrafficTreatment.builder().piTableAction(
                                               PiAction.builder().withId(INGRESS_PIPE_ACL_PUNT_TO_CPU).build())
                                                              .build())
                                       .build());
        }
        if (out.isPresent() && !out.get().isLogical() && ethDst != null) {
            MacAddress mac = ethDst.mac();
            PiCriterion match = PiCriterion.builder().matchExact(HDR_ETH_DST, mac.toBytes()).build();
            PiAction act = PiAction.builder().withId(INGRESS_PIPE_FORWARDING_SET_EGRESS_PORT)
                    .withParameter(new PiActionParam(PORT, (int) out.get().toLong())).build();
            return Optional.of(rule.forTable(INGRESS_PIPE_FORWARDING_L2_EXACT)
                                       .withSelector(DefaultTrafficSelector.builder().matchPi(match).build())
                                       .withTreatment(DefaultTrafficTreatment.builder().piTableAction(act).build())
                                       .build());
        }
        return Optional.empty();
    }

    /** Ethertypes ONOS's discovery apps punt (for documentation and tests). */
    static final List<Short> PUNTED = ImmutableList.of(Ethernet.TYPE_LLDP, Ethernet.TYPE_BSN, Ethernet.TYPE_ARP);

    @Override
    public void next(NextObjective obj) {
        fail(obj, ObjectiveError.UNSUPPORTED);
    }

    @Override
    public void purgeAll(ApplicationId appId) {
        flowRuleService.purgeFlowRules(deviceId, appId);
    }

    @Override
    public List<String> getNextMappings(NextGroup nextGroup) {
        return ImmutableList.of();
    }
}
