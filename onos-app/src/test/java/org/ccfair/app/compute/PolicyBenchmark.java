/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.compute;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.ccfair.app.CcfairParams;
import org.ccfair.app.policy.FairnessIntent;
import org.ccfair.app.policy.Scope;
import org.ccfair.app.stats.GroupStats;
import org.ccfair.app.stats.QueueStats;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SortedMap;
import java.util.concurrent.TimeUnit;

/**
 * JMH benchmark of the policy computation (run by `make bench`, not by the tests):
 * a fabric of 1,000 switches with 64 ports each (ports 1-32 fabric, 33-64 edge),
 * random active flows on every port, a fabric-wide intent plus 20 device-scoped
 * weighted intents and 20 port-scoped ones; K sub-groups per family (2 + 3K groups).
 */
@State(org.openjdk.jmh.annotations.Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class PolicyBenchmark {

    /** Sub-groups per family: 2 is the shipped K (8 groups); 4 gives 14 groups. */
    @Param({"2", "4"})
    public int k;

    private PolicyCompiler compiler;
    private PolicyDelta delta;
    private FabricView fabric;
    private List<FairnessIntent> intents;
    private StatsSnapshot stats;
    private StatsSnapshot statsOnePortChanged;
    private SortedMap<String, DevicePolicy> previous;
    private List<FairnessIntent> touching;
    private static final String CHANGED = "device:sw0500";

    @Setup(Level.Trial)
    public void setUp() {
        ObjectNode tree = (ObjectNode) CcfairParams.load().tree();
        ((ObjectNode) tree.get("groups")).put("k", k);
        CcfairParams p = CcfairParams.fromTree(tree);
        compiler = new PolicyCompiler(p);
        delta = new PolicyDelta(p);
        Random rnd = new Random(42);
        FabricView.Builder fb = FabricView.builder();
        StatsSnapshot.Builder sb = StatsSnapshot.builder();
        int groups = p.numGroups();
        for (int d = 0; d < 1000; d++) {
            String id = String.format("device:sw%04d", d);
            for (int port = 1; port <= 64; port++) {
                fb.port(id, port, port <= 32 ? PortRole.FABRIC : PortRole.EDGE, 100_000);
                int[] flows = new int[groups];
                for (int g = 0; g < groups; g++) {
                    flows[g] = rnd.nextInt(50);
                }
                sb.port(id, port, flows);
            }
        }
        fabric = fb.build();
        stats = sb.build();
        // Adaptive buffers as in production: a Cocoa state for every queue of every port.
        Cocoa cocoa = new Cocoa(p);
        int numQueues = compiler.numQueues();
        List<QueueStats> qs = new ArrayList<>();
        for (int q = 0; q < numQueues; q++) {
            qs.add(new QueueStats(q, 0, new long[(int) p.integer("cocoa", "depth_hist_buckets")],
                                   p.integer("policy", "cell_bytes_tofino")));
        }
        List<GroupStats> gs = new ArrayList<>();
        for (int g = 0; g < groups; g++) {
            gs.add(new GroupStats(g, 0, 0, 0, 0, 0));
        }
        for (String id : fabric.deviceIds()) {
            for (FabricView.Port fp : fabric.ports(id)) {
                cocoa.observe(id, fp.number(), fp.speedMbps(), gs, qs, compiler.initialBuffer(), 0);
            }
        }
        compiler.setCocoa(cocoa);
        intents = new ArrayList<>();
        intents.add(FairnessIntent.builder(p).id("all").priority(10).build());
        for (int i = 0; i < 20; i++) {
            intents.add(FairnessIntent.builder(p).id("dev" + i).priority(100)
                                .scope(Scope.devices(List.of(String.format("device:sw%04d", i * 50))))
                                .objective(FairnessIntent.Objective.WEIGHTED_GROUPS)
                                .weights(Map.of("loss", 1.0 + i % 4, "delay", 2.0)).build());
            intents.add(FairnessIntent.builder(p).id("port" + i).priority(200).targetDelayUs(1000 + i)
                                .scope(Scope.ports(List.of(String.format("device:sw%04d/%d", i * 7, 40 + i))))
                                .build());
        }
        previous = compiler.compile(fabric, intents, stats, Map.of());
        int[] changed = new int[groups];
        changed[p.groupId("loss", 0)] = 400;
        statsOnePortChanged = StatsSnapshot.builder().putAll(stats).port(CHANGED, 40, changed).build();
        touching = new ArrayList<>();
        for (FairnessIntent in : PolicyCompiler.sort(intents)) {
            if (in.scope().touchesDevice(CHANGED)) {
                touching.add(in);
            }
        }
    }

    /**
     * Thread CPU time per operation (ms), next to JMH's wall-clock time: on a
     * shared, loaded machine wall time includes waiting for a core, CPU time
     * is the per-core cost the goal is about. Usage: java ... PolicyBenchmark.
     *
     * @param args unused
     */
    public static void main(String[] args) {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        for (int kk : new int[]{2, 4}) {
            PolicyBenchmark b = new PolicyBenchmark();
            b.k = kk;
            b.setUp();
            String[] names = {"fullRecompute", "onePortDelta"};
            int[] reps = {30, 3000};
            for (int which = 0; which < 2; which++) {
                for (int i = 0; i < reps[which]; i++) { // warm-up
                    Object o = which == 0 ? b.fullRecompute() : b.onePortDelta();
                }
                long cpu0 = mx.getCurrentThreadCpuTime();
                long wall0 = System.nanoTime();
                for (int i = 0; i < reps[which]; i++) {
                    Object o = which == 0 ? b.fullRecompute() : b.onePortDelta();
                }
                double cpu = (mx.getCurrentThreadCpuTime() - cpu0) / 1e6 / reps[which];
                double wall = (System.nanoTime() - wall0) / 1e6 / reps[which];
                System.out.printf("cpu-time  %-14s k=%d  %8.3f ms/op CPU  (%8.3f ms/op wall, %d ops)%n",
                                  names[which], kk, cpu, wall, reps[which]);
            }
        }
    }

    /**
     * Full recomputation of every device.
     *
     * @return the policies (consumed by JMH)
     */
    @Benchmark
    public Object fullRecompute() {
        return compiler.compile(fabric, intents, stats, previous);
    }

    /**
     * One port's statistics changed: recompile its device and compute the writes.
     *
     * @return the writes
     */
    @Benchmark
    public Object onePortDelta() {
        DevicePolicy old = previous.get(CHANGED);
        DevicePolicy neu = compiler.compileDevice(CHANGED, fabric.ports(CHANGED), touching, statsOnePortChanged, old,
                                                  null);
        return delta.between(old, neu);
    }
}
