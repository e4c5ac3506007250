/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.compute;

import org.ccfair.app.CcfairParams;
import org.ccfair.app.stats.GroupStats;
import org.ccfair.app.stats.QueueStats;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Cocoa's adaptive buffer rules run by the controller, one state per
 * (device, port, queue), on the counters the data plane exports once per
 * recomputation round (docs/onos-app.md, "Adaptive buffers"):
 * <ul>
 * <li>a round with drops at the queue's limit ends a loss-free interval; if
 *     the port was also idle part of that round, the buffer was too small to
 *     keep the link busy: grow by the idle share (limit / utilisation - limit),
 *     at most by cocoa.max_increase;</li>
 * <li>once per guard interval, shrink by the smallest queue seen during the
 *     longest loss-free interval (the standing queue that never drained); the
 *     next guard interval is that interval times cocoa.gi_multiplier, at most
 *     cocoa.max_gi_ms; a queue with a floor (a delay group's own queue in the
 *     isolated layout, docs/algorithm.md D21) does not shrink below it.</li>
 * </ul>
 * The same rules as the ns-3 model's per-packet version (eval/model,
 * Pipeline::CocoaOnFull / CocoaGuard), at the resolution of a round; the
 * smallest queue comes from the depth histogram, so it is the lower bound
 * of the lowest bucket that saw packets (a shrink never overshoots).
 * Limits are in packets of policy.buffer_pkt_bytes.
 */
public final class Cocoa {

    private static final double IDLE_MIN = 0.02;   // below: measurement noise, not idle

    private final int min;
    private final int max;
    private final double giMultiplier;
    private final double maxIncrease;
    private final long maxGiMs;
    private final long firstCells;
    private final int shift;
    private final long pktBytes;
    // Per device and port, the states indexed by queue id (an array: limits() runs
    // for every adaptive port of every recomputation).
    private final Map<String, Map<Long, State[]>> states = new HashMap<>();
    private final Map<String, Map<Long, PortLast>> ports = new HashMap<>();

    private static final class PortLast {
        final List<GroupStats> groups;
        final long t;

        PortLast(List<GroupStats> groups, long t) {
            this.groups = groups;
            this.t = t;
        }
    }

    private static final class State {
        int limit;
        int floor;   // lowest limit the shrink leaves (D21); 0: cocoa.min_limit_pkts only
        QueueStats last;
        long liStart;
        long liMinPkts = Long.MAX_VALUE;
        long longestLi;
        long longestLiMin = Long.MAX_VALUE;
        long giStart;
        long giLen;

        State(int limit, long now, long giLen) {
            this.limit = limit;
            this.liStart = now;
            this.giStart = now;
            this.giLen = giLen;
        }
    }

    /**
     * Creates the loop with the shared parameters.
     *
     * @param params shared parameters (cocoa.*, policy.buffer_pkt_bytes)
     */
    public Cocoa(CcfairParams params) {
        this.min = (int) params.integer("cocoa", "min_limit_pkts");
        this.max = (int) params.integer("cocoa", "max_limit_pkts");
        this.giMultiplier = params.real("cocoa", "gi_multiplier");
        this.maxIncrease = params.real("cocoa", "max_increase");
        this.maxGiMs = params.integer("cocoa", "max_gi_ms");
        this.firstCells = params.integer("cocoa", "depth_hist_first_cells");
        this.shift = (int) params.integer("cocoa", "depth_hist_shift");
        this.pktBytes = params.integer("policy", "buffer_pkt_bytes");
    }

    /**
     * Smallest depth (cells) a packet counted in the bucket can have seen.
     *
     * @param bucket bucket index
     * @return lower bound in cells
     */
    public long bucketLowCells(int bucket) {
        return bucket == 0 ? 0 : firstCells << (shift * (bucket - 1));
    }

    /**
     * Feeds one round of a port's counters.
     *
     * @param deviceId  device id
     * @param port      port number
     * @param speedMbps port speed (0 when unknown: no growth)
     * @param groups    cumulative per-group counters of the port (packets and bytes before the AQM, drops)
     * @param queues    cumulative per-queue counters of the port
     * @param initial   limit of a queue seen for the first time
     * @param nowMs     time of the reading
     */
    public synchronized void observe(String deviceId, long port, long speedMbps,
                                     List<GroupStats> groups, List<QueueStats> queues, int initial, long nowMs) {
        Map<Long, State[]> byPort = states.computeIfAbsent(deviceId, d -> new HashMap<>());
        State[] byQueue = byPort.getOrDefault(port, new State[0]);
        Map<Long, PortLast> lastOfDevice = ports.computeIfAbsent(deviceId, d -> new HashMap<>());
        PortLast last = lastOfDevice.put(port, new PortLast(List.copyOf(groups), nowMs));
        double util = last == null || nowMs <= last.t || speedMbps <= 0 ? 1.0
                : utilisation(groups, last.groups, speedMbps) / (speedMbps * 1e6 * (nowMs - last.t) / 1000.0);
        for (QueueStats q : queues) {
            if (q.qid() < 0) {
                continue;
            }
            if (q.qid() >= byQueue.length) {
                byQueue = java.util.Arrays.copyOf(byQueue, q.qid() + 1);
            }
            State s = byQueue[q.qid()];
            if (s == null) {
                s = new State(clamp(initial), nowMs, maxGiMs);
                byQueue[q.qid()] = s;
            }
            if (s.last != null) {
                round(s, s.last, q, util, nowMs);
            }
            s.last = q;
        }
        byPort.put(port, byQueue);
    }

    private void round(State s, QueueStats before, QueueStats now, double util, long t) {
        long drops = now.limitDrops() - before.limitDrops();
        if (drops < 0) {
            return;   // counters were reset (pipeline reloaded): wait for the next round
        }
        if (drops > 0) {
            // The queue was full: a loss-free interval ends here.
            long li = t - s.liStart;
            if (li > s.longestLi) {
                s.longestLi = li;
                s.longestLiMin = s.liMinPkts;
            }
            s.liStart = t;
            s.liMinPkts = Long.MAX_VALUE;
            double idle = 1.0 - util;
            if (util > 0 && idle > IDLE_MIN) {
                // Cocoa adds the packets the link could have sent while idle; at the
                // resolution of a round: the buffer times idle / busy.
                double inc = Math.min(s.limit * (1.0 / util - 1.0), s.limit * (maxIncrease - 1.0));
                s.limit = clamp((long) Math.floor(s.limit + inc));
            }
        } else {
            long[] h = now.depthHist();
            long[] h0 = before.depthHist();
            long minPkts = Long.MAX_VALUE;
            boolean seen = false;
            for (int b = 0; b < h.length && b < h0.length; b++) {
                if (h[b] - h0[b] > 0) {
                    minPkts = bucketLowCells(b) * now.cellBytes() / pktBytes;
                    seen = true;
                    break;
                }
            }
            // No packet at all: the queue was empty, nothing stood.
            s.liMinPkts = Math.min(s.liMinPkts, seen ? minPkts : 0);
        }
        if (t - s.giStart >= s.giLen) {
            long len = s.longestLi;
            long standing = s.longestLiMin;
            if (t - s.liStart > len) {
                len = t - s.liStart;
                standing = s.liMinPkts;
            }
            if (standing != Long.MAX_VALUE && standing > 0) {
                s.limit = Math.max(s.floor, clamp(s.limit - standing));
            }
            s.giLen = len == 0 ? maxGiMs : Math.min((long) (len * giMultiplier), maxGiMs);
            s.giStart = t;
            s.longestLi = 0;
            s.longestLiMin = Long.MAX_VALUE;
            s.liStart = t;
            s.liMinPkts = Long.MAX_VALUE;
        }
    }

    // Bits the port sent since the previous reading (counted minus dropped, pro rata), or
    // +infinity when unknown (utilisation then counts as full: never grow).
    private static double utilisation(List<GroupStats> now, List<GroupStats> before, long speedMbps) {
        if (speedMbps <= 0 || now.size() != before.size()) {
            return Double.POSITIVE_INFINITY;
        }
        double bits = 0;
        for (int i = 0; i < now.size(); i++) {
            bits += now.get(i).forwardedBitsSince(before.get(i));
        }
        return bits;
    }

    private int clamp(long v) {
        return (int) Math.max(min, Math.min(max, v));
    }

    /**
     * Current limits of a port's queues.
     *
     * @param deviceId  device id
     * @param port      port number
     * @param numQueues queues per port
     * @param initial   limit of queues without state
     * @return limit per queue id, or null if no queue of the port has state
     */
    public synchronized int[] limits(String deviceId, long port, int numQueues, int initial) {
        Map<Long, State[]> byPort = states.get(deviceId);
        State[] byQueue = byPort == null ? null : byPort.get(port);
        if (byQueue == null || byQueue.length == 0) {
            return null;
        }
        int[] out = new int[numQueues];
        for (int q = 0; q < numQueues; q++) {
            State s = q < byQueue.length ? byQueue[q] : null;
            out[q] = s == null ? clamp(initial) : s.limit;
        }
        return out;
    }

    /**
     * Current limits of a port's queues, with this round's floors (D21): each
     * queue's limit is raised to its floor now, and its shrinks stop there until
     * the next call of this method sets another (null: none). The compiler calls
     * it once per port and round.
     *
     * @param deviceId  device id
     * @param port      port number
     * @param numQueues queues per port
     * @param initial   limit of queues without state
     * @param floors    lowest limit per queue id (0 or missing: none), or null for none
     * @return limit per queue id, or null if no queue of the port has state and no floor applies
     */
    public synchronized int[] limits(String deviceId, long port, int numQueues, int initial, int[] floors) {
        Map<Long, State[]> byPort = states.get(deviceId);
        State[] byQueue = byPort == null ? null : byPort.get(port);
        boolean noState = byQueue == null || byQueue.length == 0;
        if (noState && floors == null) {
            return null;
        }
        int[] out = new int[numQueues];
        for (int q = 0; q < numQueues; q++) {
            State s = noState || q >= byQueue.length ? null : byQueue[q];
            int floor = floors != null && q < floors.length ? Math.min(max, Math.max(0, floors[q])) : 0;
            if (s != null) {
                s.floor = floor;
                s.limit = Math.max(s.limit, floor);
            }
            out[q] = s == null ? Math.max(clamp(initial), floor) : s.limit;
        }
        return out;
    }

    /**
     * Forgets a device (removed, or its pipeline was reset).
     *
     * @param deviceId device id
     */
    public synchronized void forget(String deviceId) {
        states.remove(deviceId);
        ports.remove(deviceId);
    }
}
