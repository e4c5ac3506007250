/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app;

import org.ccfair.app.compute.FabricView;
import org.ccfair.app.compute.PolicyWrite;
import org.ccfair.app.compute.PortRole;
import org.ccfair.app.compute.StatsSnapshot;
import org.ccfair.app.policy.FairnessIntent;
import org.junit.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

/**
 * Push rounds: difference only, retries with backoff, resync, mastership.
 */
public class PolicyEngineTest {

    private static final CcfairParams P = CcfairParams.load();
    private final List<List<PolicyWrite>> pushes = new ArrayList<>();
    private int failuresLeft;

    private final DeviceWriter writer = (d, ws) -> {
        if (failuresLeft > 0) {
            failuresLeft--;
            throw new IllegalStateException("switch said no");
        }
        pushes.add(ws);
    };

    private final FabricView fabric = FabricView.builder().port("device:s1", 1, PortRole.EDGE, 10_000)
            .port("device:s2", 1, PortRole.EDGE, 10_000).build();

    @Test
    public void pushesDifferenceOnlyAndRetriesWithBackoff() {
        PolicyEngine e = new PolicyEngine(P, writer);
        e.run(fabric, List.of(), StatsSnapshot.EMPTY, d -> d.equals("device:s1"), 0);
        assertEquals("only the master pushes", 1, pushes.size());
        assertEquals(PushStatus.State.NOT_MASTER, e.status().get("device:s2").state());
        assertEquals(PushStatus.State.IN_SYNC, e.status().get("device:s1").state());
        e.run(fabric, List.of(), StatsSnapshot.EMPTY, d -> d.equals("device:s1"), 10);
        assertEquals("nothing changed, nothing written", 1, pushes.size());

        FairnessIntent in = FairnessIntent.builder(P).id("a").targetDelayUs(700).build();
        failuresLeft = 2;
        long t0 = 1000;
        e.run(fabric, List.of(in), StatsSnapshot.EMPTY, d -> d.equals("device:s1"), t0);
        PushStatus st = e.status().get("device:s1");
        assertEquals(PushStatus.State.FAILED, st.state());
        assertEquals("switch said no", st.lastError());
        long initial = P.integer("controller", "retry_initial_ms");
        assertEquals(t0 + initial, st.nextRetryMs());
        e.run(fabric, List.of(in), StatsSnapshot.EMPTY, d -> d.equals("device:s1"), t0 + initial - 1);
        assertEquals("no retry before the backoff", 1, e.status().get("device:s1").attempts());
        e.run(fabric, List.of(in), StatsSnapshot.EMPTY, d -> d.equals("device:s1"), t0 + initial);
        st = e.status().get("device:s1");
        assertEquals(2, st.attempts());
        assertEquals("backoff doubles", t0 + initial + 2 * initial, st.nextRetryMs());
        e.run(fabric, List.of(in), StatsSnapshot.EMPTY, d -> d.equals("device:s1"), t0 + 3 * initial);
        assertEquals(PushStatus.State.IN_SYNC, e.status().get("device:s1").state());
        List<PolicyWrite> last = pushes.get(pushes.size() - 1);
        assertTrue("the retry pushes the same difference (AQM of one port)",
                   last.stream().allMatch(w -> w.op() == PolicyWrite.Op.MODIFY));

        e.resync("device:s1");
        e.run(fabric, List.of(in), StatsSnapshot.EMPTY, d -> d.equals("device:s1"), t0 + 4 * initial);
        assertTrue("resync pushes everything", pushes.get(pushes.size() - 1).stream()
                .allMatch(w -> w.op() == PolicyWrite.Op.INSERT) && pushes.get(pushes.size() - 1).size() > 1000);
    }

    @Test
    public void backoffIsCapped() {
        PolicyEngine e = new PolicyEngine(P, writer);
        failuresLeft = 100;
        long now = 0;
        for (int i = 0; i < 20; i++) {
            e.run(fabric, List.of(), StatsSnapshot.EMPTY, d -> true, now);
            now = e.status().get("device:s1").nextRetryMs();
        }
        PushStatus st = e.status().get("device:s1");
        assertEquals(P.integer("controller", "retry_max_ms"), st.nextRetryMs() - st.updatedMs());
    }

    /** A round interrupted while writing (RoundRunner.stop) writes no further device and keeps the flag. */
    @Test
    public void anInterruptedRoundWritesNoFurtherDevice() {
        List<String> written = new ArrayList<>();
        PolicyEngine e = new PolicyEngine(P, (d, ws) -> {
            written.add(d);
            throw new InterruptedException("stop() while waiting for ONOS");
        });
        try {
            e.run(fabric, List.of(), StatsSnapshot.EMPTY, d -> true, 0);
            assertEquals("the first device's write was interrupted, the second never started", 1, written.size());
            assertTrue("the interrupt is kept for the runner", Thread.currentThread().isInterrupted());
        } finally {
            Thread.interrupted();  // clear it for the next test on this thread
        }
    }
}
