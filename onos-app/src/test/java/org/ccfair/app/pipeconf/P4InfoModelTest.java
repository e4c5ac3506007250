/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.pipeconf;

import org.ccfair.app.CcfairParams;
import org.ccfair.app.compute.DevicePolicy;
import org.ccfair.app.compute.Fabrics;
import org.ccfair.app.compute.PolicyCompiler;
import org.ccfair.app.compute.PolicyDelta;
import org.ccfair.app.compute.PolicyWrite;
import org.ccfair.app.compute.StatsSnapshot;
import org.junit.Test;
import org.onlab.util.ImmutableByteSequence;
import org.onosproject.net.pi.model.PiActionModel;
import org.onosproject.net.pi.model.PiPipeconf;
import org.onosproject.net.pi.model.PiPipelineModel;
import org.onosproject.net.pi.model.PiTableModel;
import org.onosproject.net.pi.runtime.PiAction;
import org.onosproject.net.pi.runtime.PiActionParam;
import org.onosproject.net.pi.runtime.PiExactFieldMatch;
import org.onosproject.net.pi.runtime.PiFieldMatch;
import org.onosproject.net.pi.runtime.PiRangeFieldMatch;
import org.onosproject.net.pi.runtime.PiTableEntry;
import org.onosproject.p4runtime.model.P4InfoParser;

import java.io.File;
import java.net.URL;
import java.util.List;
import java.util.Map;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

/**
 * Every table entry the app writes is checked against the pipeline model
 * parsed from the P4Info by ONOS's own parser: table, match fields and
 * their kinds, action (allowed in that table) and parameters, widths. Uses
 * the committed P4Info of each profile (as bundled for ONOS 2.7 by
 * tools/p4info_for_onos.py), or the contract of docs/dataplane.md
 * (tools/contract-p4info.txt) while none is committed, and says which.
 */
public class P4InfoModelTest {

    private static final CcfairParams P = CcfairParams.load();

    static URL p4info(String profile) throws Exception {
        // The committed P4Info as the build bundles it (tools/p4info_for_onos.py).
        File f = new File("target/generated-resources/p4info/" + profile + "/p4info.txt");
        if (f.exists()) {
            return f.toURI().toURL();
        }
        System.out.println("P4InfoModelTest: p4/p4info/" + profile + "/p4info.txt not committed; checking against "
                                   + "the contract tools/contract-p4info.txt");
        return new File("tools/contract-p4info.txt").toURI().toURL();
    }

    @Test
    public void policyEntriesMatchTheModel() throws Exception {
        for (String profile : PipeconfLoader.PROFILES) {
            PiPipelineModel model = P4InfoParser.parse(p4info(profile));
            PolicyTranslator tr = new PolicyTranslator(P, profile);
            DevicePolicy d = new PolicyCompiler(P).compile(Fabrics.leafSpine(1, 2, 3), List.of(),
                                                           StatsSnapshot.EMPTY, Map.of()).get(Fabrics.leaf(1));
            List<PolicyWrite> ws = new PolicyDelta(P).full(d);
            for (PolicyWrite w : ws) {
                check(model, tr.entry(w), w.toString());
            }
        }
    }

    static void check(PiPipelineModel model, PiTableEntry e, String what) {
        PiTableModel t = model.table(e.table()).orElse(null);
        assertNotNull(what + ": no table " + e.table(), t);
        assertEquals(what + ": match fields", t.matchFields().size(), e.matchKey().fieldMatches().size());
        for (PiFieldMatch m : e.matchKey().fieldMatches()) {
            assertTrue(what + ": no field " + m.fieldId(), t.matchField(m.fieldId()).isPresent());
            assertEquals(what + ": match kind of " + m.fieldId(), t.matchField(m.fieldId()).get().matchType(),
                         m.type());
            int width = t.matchField(m.fieldId()).get().bitWidth();
            if (m instanceof PiExactFieldMatch) {
                assertTrue(what + ": " + m.fieldId() + " does not fit " + width + " bits",
                           fits(((PiExactFieldMatch) m).value(), width));
            } else if (m instanceof PiRangeFieldMatch) {
                assertTrue(what + ": " + m.fieldId() + " range does not fit " + width + " bits",
                           fits(((PiRangeFieldMatch) m).highValue(), width));
            }
        }
        if (e.action() != null) {
            PiAction a = (PiAction) e.action();
            PiActionModel am = t.action(a.id()).orElse(null);
            assertNotNull(what + ": action " + a.id() + " not allowed in " + e.table(), am);
            assertEquals(what + ": params of " + a.id(), am.params().size(), a.parameters().size());
            for (PiActionParam p : a.parameters()) {
                assertTrue(what + ": no param " + p.id(), am.param(p.id()).isPresent());
                int width = am.param(p.id()).get().bitWidth();
                assertTrue(what + ": " + p.id() + " does not fit " + width + " bits", fits(p.value(), width));
            }
        }
    }

    // Width 0: a translated type (e.g. the 32-bit SDN port); ONOS sends it as is.
    static boolean fits(ImmutableByteSequence v, int width) {
        if (width == 0) {
            return true;
        }
        try {
            v.fit(width);
            return true;
        } catch (ImmutableByteSequence.ByteSequenceTrimException e) {
            return false;
        }
    }

    @Test
    public void pipeconfsBuildFromBundledOrContractP4Info() throws Exception {
        PipeconfLoader l = new PipeconfLoader();
        for (String profile : PipeconfLoader.PROFILES) {
            PiPipeconf pc = l.build(profile);
            if (pc == null) {
                // Not bundled (no committed P4Info): the loader must say so and register nothing.
                assertTrue(!new File("../p4/p4info/" + profile + "/p4info.txt").exists());
                System.out.println("SKIPPED: pipeconf " + profile + " from bundled P4Info (p4/p4info/" + profile
                                           + "/p4info.txt not committed yet)");
                continue;
            }
            assertEquals(PipeconfLoader.pipeconfId(profile), pc.id());
            assertTrue(pc.extension(PiPipeconf.ExtensionType.P4_INFO_TEXT).isPresent());
            assertTrue(pc.hasBehaviour(org.onosproject.net.pi.model.PiPipelineInterpreter.class));
            assertTrue(pc.hasBehaviour(org.onosproject.net.behaviour.Pipeliner.class));
        }
    }
}
