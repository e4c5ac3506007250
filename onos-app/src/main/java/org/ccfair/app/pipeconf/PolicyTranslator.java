/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.pipeconf;

import org.ccfair.app.CcfairParams;
import org.ccfair.app.compute.PolicyWrite;
import org.onlab.util.ImmutableByteSequence;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.DefaultFlowRule;
import org.onosproject.net.flow.DefaultTrafficSelector;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.criteria.PiCriterion;
import org.onosproject.net.pi.model.PiActionParamId;
import org.onosproject.net.pi.model.PiMatchFieldId;
import org.onosproject.net.pi.runtime.PiAction;
import org.onosproject.net.pi.runtime.PiActionParam;
import org.onosproject.net.pi.runtime.PiExactFieldMatch;
import org.onosproject.net.pi.runtime.PiMatchKey;
import org.onosproject.net.pi.runtime.PiRangeFieldMatch;
import org.onosproject.net.pi.runtime.PiTableEntry;

import static org.ccfair.app.pipeconf.P4InfoConstants.*;

/**
 * Translates logical policy writes into table entries of the ccfair program,
 * with the names and widths of the generated P4Info constants, and those
 * entries into ONOS flow rules ({@link #flowRule}), the form in which the app
 * writes them (through FlowRuleService, so ONOS's reconciliation keeps them).
 */
public final class PolicyTranslator {

    /**
     * Flow-rule priority of entries of exact-match tables. ONOS requires a
     * priority on every flow rule and ignores it when translating a rule for
     * a table without ternary, range or optional fields (PiFlowRuleTranslatorImpl).
     */
    public static final int EXACT_PRIORITY = FlowRule.MIN_PRIORITY;

    /**
     * P4Runtime priority of the rtt_band entries (a range table). The bands are
     * disjoint, so one priority is enough; ONOS writes flow-rule priority p as
     * P4Runtime priority p + 1 (PiFlowRuleTranslatorImpl.MIN_PI_PRIORITY), so the
     * flow rule carries this value minus 1.
     */
    public static final int RTT_BAND_PI_PRIORITY = 1;

    private final long roleEdge;
    private final long cellsPerPkt;

    /**
     * Creates a translator for one profile.
     *
     * @param params  shared parameters
     * @param profile "tofino" or "tofino2" (buffer cell size)
     */
    public PolicyTranslator(CcfairParams params, String profile) {
        this.roleEdge = params.integer("ports", "role_edge");
        long cell = params.integer("policy", "cell_bytes_" + profile);
        long pkt = params.integer("policy", "buffer_pkt_bytes");
        this.cellsPerPkt = (pkt + cell - 1) / cell;
    }

    // The data plane matches the clamped RTT on its low bits only (P4Info
    // bitwidth): the open-ended last band ends at the largest key value.
    private static final long RTT_KEY_MAX = (1L << HDR_RTT_US_BITWIDTH) - 1;

    private static ImmutableByteSequence bits(long v, int width) {
        try {
            return ImmutableByteSequence.copyFrom(v).fit(width);
        } catch (ImmutableByteSequence.ByteSequenceTrimException e) {
            throw new IllegalArgumentException("value " + v + " does not fit in " + width + " bits", e);
        }
    }

    private static PiExactFieldMatch exact(PiMatchFieldId f, long v, int width) {
        return new PiExactFieldMatch(f, bits(v, width));
    }

    private static PiActionParam param(PiActionParamId p, long v, int width) {
        return new PiActionParam(p, bits(v, width));
    }

    /**
     * The table entry of a write (for DELETE only the match key matters).
     *
     * @param w logical write
     * @return table entry
     */
    public PiTableEntry entry(PolicyWrite w) {
        PiTableEntry.Builder b = PiTableEntry.builder();
        boolean del = w.op() == PolicyWrite.Op.DELETE;
        switch (w.table()) {
            case INGRESS_PORT:
                b.forTable(INGRESS_PIPE_PORT_CFG_PORT_CFG)
                        .withMatchKey(PiMatchKey.builder().addFieldMatch(exact(HDR_IG_PORT, w.key(0),
                                                                               HDR_IG_PORT_BITWIDTH)).build());
                if (!del) {
                    b.withAction(w.value(0) == roleEdge
                            ? PiAction.builder().withId(INGRESS_PIPE_PORT_CFG_SET_EDGE_PORT)
                                    .withParameter(param(DEFAULT_RTT_US, w.value(1), DEFAULT_RTT_US_BITWIDTH)).build()
                            : PiAction.builder().withId(INGRESS_PIPE_PORT_CFG_SET_FABRIC_PORT).build());
                }
                break;
            case EGRESS_PORT:
                b.forTable(EGRESS_PIPE_PORT_CFG_PORT_CFG)
                        .withMatchKey(PiMatchKey.builder().addFieldMatch(exact(HDR_EG_PORT, w.key(0),
                                                                               HDR_EG_PORT_BITWIDTH)).build());
                if (!del) {
                    b.withAction(PiAction.builder().withId(EGRESS_PIPE_PORT_CFG_SET_PORT_CFG)
                                         .withParameter(param(ROLE, w.value(0), ROLE_BITWIDTH))
                                         .withParameter(param(TVF_PROFILE, w.value(1), TVF_PROFILE_BITWIDTH))
                                         .withParameter(param(FAIR_RATE_BIN, w.value(2), FAIR_RATE_BIN_BITWIDTH))
                                         .withParameter(param(ANT_MAX_PKTS, w.value(3), ANT_MAX_PKTS_BITWIDTH))
                                         .withParameter(param(M_M, w.value(4), M_M_BITWIDTH))
                                         .withParameter(param(SS_DROP, w.value(5), SS_DROP_BITWIDTH))
                                         .withParameter(param(FAMILY_FORGET, w.value(6), FAMILY_FORGET_BITWIDTH))
                                         .withParameter(param(STATS_IDX, w.value(7), STATS_IDX_BITWIDTH)).build());
                }
                break;
            case PORT_INDEX:
                b.forTable(INGRESS_PIPE_EG_PORT_IDX_EG_PORT_IDX)
                        .withMatchKey(PiMatchKey.builder().addFieldMatch(exact(HDR_EG_PORT, w.key(0),
                                                                               HDR_EG_PORT_BITWIDTH)).build());
                if (!del) {
                    b.withAction(PiAction.builder().withId(INGRESS_PIPE_EG_PORT_IDX_SET_STATS_IDX)
                                         .withParameter(param(STATS_IDX, w.value(0), STATS_IDX_BITWIDTH)).build());
                }
                break;
            case QUEUE_MAP:
                b.forTable(INGRESS_PIPE_QUEUEING_QUEUE_MAP)
                        .withMatchKey(PiMatchKey.builder()
                                              .addFieldMatch(exact(HDR_EG_PORT, w.key(0), HDR_EG_PORT_BITWIDTH))
                                              .addFieldMatch(exact(HDR_GROUP, w.key(1), HDR_GROUP_BITWIDTH))
                                              .addFieldMatch(exact(HDR_SLOT, w.key(2), HDR_SLOT_BITWIDTH)).build());
                if (!del) {
                    b.withAction(PiAction.builder().withId(INGRESS_PIPE_QUEUEING_SET_QUEUE)
                                         .withParameter(param(QID, w.value(0), QID_BITWIDTH)).build());
                }
                break;
            case TVF:
                b.forTable(EGRESS_PIPE_MARKER_TVF)
                        .withMatchKey(PiMatchKey.builder()
                                              .addFieldMatch(exact(HDR_TVF_PROFILE, w.key(0), HDR_TVF_PROFILE_BITWIDTH))
                                              .addFieldMatch(exact(HDR_GROUP, w.key(1), HDR_GROUP_BITWIDTH))
                                              .addFieldMatch(exact(HDR_RATE_BIN, w.key(2), HDR_RATE_BIN_BITWIDTH))
                                              .build());
                if (!del) {
                    b.withAction(PiAction.builder().withId(EGRESS_PIPE_MARKER_SET_PV)
                                         .withParameter(param(PV, w.value(0), PV_BITWIDTH)).build());
                }
                break;
            case AQM:
                b.forTable(EGRESS_PIPE_AQM_AQM_CFG)
                        .withMatchKey(PiMatchKey.builder()
                                              .addFieldMatch(exact(HDR_EG_PORT, w.key(0), HDR_EG_PORT_BITWIDTH))
                                              .addFieldMatch(exact(HDR_QID, w.key(1), HDR_QID_BITWIDTH)).build());
                if (!del) {
                    b.withAction(PiAction.builder().withId(EGRESS_PIPE_AQM_SET_AQM)
                                         .withParameter(param(TARGET_DELAY_US, w.value(0), TARGET_DELAY_US_BITWIDTH))
                                         .withParameter(param(LIMIT_CELLS, w.value(1) * cellsPerPkt,
                                                              LIMIT_CELLS_BITWIDTH))
                                         .withParameter(param(ECN, w.value(2), ECN_BITWIDTH))
                                         .withParameter(param(CTV_LO, w.value(3), CTV_LO_BITWIDTH))
                                         .withParameter(param(CTV_HI, w.value(4), CTV_HI_BITWIDTH)).build());
                }
                break;
            case RTT_BAND:
                b.forTable(EGRESS_PIPE_CLASSIFIER_RTT_BAND)
                        .withMatchKey(PiMatchKey.builder().addFieldMatch(new PiRangeFieldMatch(
                                HDR_RTT_US, bits(w.key(0), HDR_RTT_US_BITWIDTH),
                                bits(Math.min(w.key(1), RTT_KEY_MAX), HDR_RTT_US_BITWIDTH)))
                                              .build())
                        .withPriority(RTT_BAND_PI_PRIORITY);
                if (!del) {
                    b.withAction(PiAction.builder().withId(EGRESS_PIPE_CLASSIFIER_SET_RTT_BAND)
                                         .withParameter(param(BAND, w.value(0), BAND_BITWIDTH)).build());
                }
                break;
            default:
                throw new IllegalArgumentException("no P4 table for " + w.table());
        }
        return b.build();
    }

    /**
     * The ONOS flow rule of a write: the table entry of {@link #entry} as a
     * PiCriterion selector and a PiAction treatment, permanent, owned by the
     * app. For a DELETE the treatment is empty; such a rule only identifies the
     * entry (flow id from device, app, table, selector and priority) and the
     * writer removes the stored flow entry with that id.
     *
     * @param device device
     * @param appId  the ccfair application id
     * @param w      logical write
     * @return flow rule
     */
    public FlowRule flowRule(DeviceId device, ApplicationId appId, PolicyWrite w) {
        PiTableEntry e = entry(w);
        PiCriterion.Builder match = PiCriterion.builder();
        e.matchKey().fieldMatches().forEach(match::add);
        int priority = e.priority().isPresent() ? e.priority().getAsInt() - 1 : EXACT_PRIORITY;
        return DefaultFlowRule.builder()
                .forDevice(device)
                .fromApp(appId)
                .forTable(e.table())
                .withSelector(DefaultTrafficSelector.builder().matchPi(match.build()).build())
                .withTreatment(e.action() == null ? DefaultTrafficTreatment.emptyTreatment()
                                       : DefaultTrafficTreatment.builder().piTableAction(e.action()).build())
                .withPriority(priority)
                .makePermanent()
                .build();
    }
}
