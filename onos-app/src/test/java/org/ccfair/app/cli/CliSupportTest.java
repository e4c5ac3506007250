/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.cli;

import org.ccfair.app.CcfairParams;
import org.ccfair.app.FakeCcfairService;
import org.ccfair.app.compute.DevicePolicy;
import org.ccfair.app.compute.Fabrics;
import org.ccfair.app.policy.FairnessIntent;
import org.ccfair.app.policy.IntentJson;
import org.ccfair.app.policy.InvalidIntentException;
import org.ccfair.app.stats.GroupStats;
import org.junit.Test;

import java.util.List;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/**
 * CLI option parsing (same validation as REST) and output.
 */
public class CliSupportTest {

    private static final CcfairParams P = CcfairParams.load();
    private final IntentJson json = new IntentJson(P);

    @Test
    public void optionsBuildAValidIntent() {
        FairnessIntent in = json.decode(CliSupport.intentJson(
                "gold", "device:leaf1,device:leaf2", null, "weighted-groups", List.of("loss=2", "delay=0.5"),
                0.125, null, 2000L, "fixed:400", 7, "5"));
        assertEquals(2, in.scope().deviceIds().size());
        assertEquals(2.0, in.weight("loss"), 0);
        assertEquals(400, in.bufferLimitPkts());
        assertEquals(5, in.mM());
        assertTrue(CliSupport.intentLine(in), CliSupport.intentLine(in).endsWith(", m_m=5"));
        assertTrue(CliSupport.intentLine(in).startsWith("id=gold, priority=7, scope=devices[device:leaf1, "));
        assertTrue(CliSupport.intentLine(in), CliSupport.intentLine(in).contains(", queue_layout=shared, "));
        FairnessIntent iso = json.decode(CliSupport.intentJson("iso", null, null, null, null, null, null, null, null,
                                                               null, null, "isolated"));
        assertEquals(FairnessIntent.QueueLayout.ISOLATED, iso.queueLayout());
        try {
            json.decode(CliSupport.intentJson("x", null, null, null, null, null, null, null, null, null, null,
                                              "per-group"));
            fail("accepted --queue-layout per-group");
        } catch (InvalidIntentException e) {
            assertEquals(List.of("queue_layout: 'per-group' is not 'shared' or 'isolated'"), e.errors());
        }
    }

    @Test
    public void badOptionsNameTheOption() {
        String[][] cases = {{"--weight", "loss:2"}, {"--buffer", "fixed:x"}, {"--classifier", "1,2"},
                            {"--classifier", "x"}};
        for (String[] c : cases) {
            try {
                CliSupport.intentJson("a", null, null, null, c[0].equals("--weight") ? List.of(c[1]) : null, null,
                                      null, null, c[0].equals("--buffer") ? c[1] : null, null,
                                      c[0].equals("--classifier") ? c[1] : null);
                fail("accepted " + c[1]);
            } catch (IllegalArgumentException e) {
                assertTrue(e.getMessage(), e.getMessage().startsWith(c[0] + ": "));
            }
        }
        try {
            json.decode(CliSupport.intentJson("a", null, "device:s1", null, null, null, null, null, null, null,
                                              null));
            fail("accepted a port without number");
        } catch (InvalidIntentException e) {
            assertTrue(e.getMessage(), e.errors().get(0).startsWith("scope.ports[0]: 'device:s1' is not"));
        }
        // The old mLD,mPL,mM form says why it is refused.
        try {
            CliSupport.intentJson("a", null, null, null, null, null, null, null, null, null, "4,12,4");
            fail("accepted --classifier 4,12,4");
        } catch (IllegalArgumentException e) {
            assertEquals("--classifier: '4,12,4' is not mM (mLD and mPL were removed: the family is decided by "
                                 + "the loss response, docs/algorithm.md D11)", e.getMessage());
        }
    }

    @Test
    public void policyAndStatsText() {
        FakeCcfairService s = new FakeCcfairService(Fabrics.leafSpine(1, 1, 1));
        DevicePolicy d = s.policies().get(Fabrics.leaf(1));
        List<String> lines = CliSupport.portLines(P, d, d.port(2));
        assertTrue(lines.get(0), lines.get(0).startsWith("  port 2: role=edge, intent=(default)"));
        assertTrue(lines.get(0), lines.get(0).contains(", queue_layout=shared, "));
        assertTrue(lines.get(0), lines.get(0).endsWith(", m_m=" + P.integer("classifier", "m_m")));
        assertTrue(lines.get(1),
                   lines.get(1).startsWith("    queues: ant=[0,0,0,0] mouse=[1,1,1,1] delay.0=[2,2,2,2]"));
        // the share correction: a line only when a group has one
        assertEquals(lines, CliSupport.portLines(P, d, d.port(2), new double[P.numGroups()]));
        double[] corr = new double[P.numGroups()];
        corr[P.groupId("loss", 1)] = 0.75;
        corr[P.groupId("hybrid", 1)] = -1.25;
        List<String> withCorr = CliSupport.portLines(P, d, d.port(2), corr);
        assertEquals("    share correction (bins): loss.1=+0.75 hybrid.1=-1.25", withCorr.get(withCorr.size() - 1));
        List<String> st = CliSupport.statsLines(P, 2, List.of(new GroupStats(3, 4, 5, 6, 7, 8)));
        assertEquals("    delay.1   flows=4 pkts=5 bytes=6 drops=7 ecn_marks=8", st.get(1));
    }
}
