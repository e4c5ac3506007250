/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app;

import org.junit.Test;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/**
 * Checks the bundled parameter file is readable and its derived group layout
 * is consistent (every group id distinct and in range).
 */
public class CcfairParamsTest {

    @Test
    public void groupLayoutIsDenseAndDistinct() {
        CcfairParams p = CcfairParams.load();
        int n = p.numGroups();
        boolean[] seen = new boolean[n];
        seen[(int) p.integer("groups", "ant")] = true;
        seen[(int) p.integer("groups", "mouse")] = true;
        for (String fam : new String[]{"delay", "loss", "hybrid"}) {
            for (int s = 0; s < p.k(); s++) {
                int id = p.groupId(fam, s);
                assertTrue("group id " + id + " out of range", id >= 0 && id < n);
                assertTrue("group id " + id + " used twice", !seen[id]);
                seen[id] = true;
            }
        }
        for (int i = 0; i < n; i++) {
            assertTrue("group id " + i + " unused", seen[i]);
        }
    }

    @Test
    public void hexAndBooleanParametersParse() {
        CcfairParams p = CcfairParams.load();
        long et = p.integer("shim", "ether_type");
        assertTrue("shim ethertype must be >= 0x0600 to be an ethertype", et >= 0x600 && et <= 0xffff);
        assertEquals(p.integer("aqm", "ecn") == 1 || p.integer("aqm", "ecn") == 0, true);
    }

    @Test
    public void profileParametersAreRead() {
        CcfairParams p = CcfairParams.load();
        assertEquals(p.tree().path("targets").path("profiles").path("tofino2").path("pipes").asLong(),
                     p.profileInteger("tofino2", "pipes"));
        assertEquals(65536, p.profileInteger("tofino", "flows_per_pipe"));
    }

    @Test
    public void badLookupsNameTheParameter() {
        CcfairParams p = CcfairParams.load();
        try {
            p.integer("classifier", "no_such_key");
            fail("missing key accepted");
        } catch (IllegalArgumentException e) {
            assertEquals("no parameter classifier.no_such_key", e.getMessage());
        }
        try {
            p.profileInteger("tofino", "no_such_key");
            fail("missing profile key accepted");
        } catch (IllegalArgumentException e) {
            assertEquals("no parameter targets.profiles.tofino.no_such_key", e.getMessage());
        }
        try {
            p.profileInteger("tofino", "arch");
            fail("string read as an integer");
        } catch (IllegalArgumentException e) {
            assertTrue(e.getMessage(), e.getMessage().startsWith("targets.profiles.tofino.arch is not an integer"));
        }
        try {
            p.groupId("loss", p.k());
            fail("sub-group K accepted");
        } catch (IllegalArgumentException e) {
            assertTrue(e.getMessage(), e.getMessage().contains("out of range"));
        }
    }
}
