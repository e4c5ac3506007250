/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app;

import org.ccfair.app.compute.DevicePolicy;
import org.ccfair.app.compute.FabricView;
import org.ccfair.app.compute.PolicyCompiler;
import org.ccfair.app.compute.PolicyDelta;
import org.ccfair.app.compute.PolicyWrite;
import org.ccfair.app.compute.StatsSnapshot;
import org.ccfair.app.policy.FairnessIntent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * One recomputation round: compile the whole fabric, then for every device
 * this node is master of, write the difference between what the device runs
 * and the new policy. A device whose write fails keeps its last installed
 * policy as the base, is reported (log + {@link PushStatus}) and retried
 * after an exponential backoff (controller.retry_initial_ms doubling up to
 * controller.retry_max_ms). Needs no ONOS runtime, so it is unit-tested with
 * fake writers.
 */
public final class PolicyEngine {

    private final Logger log = LoggerFactory.getLogger(getClass());
    private final PolicyCompiler compiler;
    private final PolicyDelta delta;
    private final DeviceWriter writer;
    private final long retryInitialMs;
    private final long retryMaxMs;

    private SortedMap<String, DevicePolicy> target = new TreeMap<>();
    private final Map<String, DevicePolicy> installed = new HashMap<>();
    private final Map<String, PushStatus> status = new TreeMap<>();

    /**
     * Creates the engine.
     *
     * @param params shared parameters
     * @param writer device writer
     */
    public PolicyEngine(CcfairParams params, DeviceWriter writer) {
        this.compiler = new PolicyCompiler(params);
        this.delta = new PolicyDelta(params);
        this.writer = writer;
        this.retryInitialMs = params.integer("controller", "retry_initial_ms");
        this.retryMaxMs = params.integer("controller", "retry_max_ms");
    }

    /**
     * Recomputes and pushes.
     *
     * @param fabric   topology
     * @param intents  intents
     * @param stats    active flows
     * @param isMaster whether this node is master of a device
     * @param nowMs    current time
     */
    public synchronized void run(FabricView fabric, Collection<FairnessIntent> intents, StatsSnapshot stats,
                                 Predicate<String> isMaster, long nowMs) {
        Map<String, DevicePolicy> base = new HashMap<>(target);
        base.putAll(installed);
        target = compiler.compile(fabric, intents, stats, base);
        installed.keySet().retainAll(target.keySet());
        status.keySet().retainAll(target.keySet());
        for (DevicePolicy t : target.values()) {
            String d = t.deviceId();
            if (Thread.currentThread().isInterrupted()) {
                return;  // the app is stopping: no further device is written
            }
            if (!isMaster.test(d)) {
                // Another node writes it; if mastership comes back the device state is unknown: full push.
                installed.remove(d);
                status.put(d, new PushStatus(PushStatus.State.NOT_MASTER, 0, 0, null, 0, nowMs));
                continue;
            }
            PushStatus st = status.get(d);
            if (st != null && st.state() == PushStatus.State.FAILED && nowMs < st.nextRetryMs()) {
                continue;
            }
            DevicePolicy from = installed.get(d);
            if (from != null && !storeAgrees(d, from)) {
                installed.remove(d);
                from = null;
            }
            List<PolicyWrite> ws = from == null ? delta.full(t) : delta.between(from, t);
            if (ws.isEmpty()) {
                status.put(d, new PushStatus(PushStatus.State.IN_SYNC, 0, 0, null, 0, nowMs));
                continue;
            }
            try {
                writer.write(d, ws, from == null);
                installed.put(d, t);
                status.put(d, new PushStatus(PushStatus.State.IN_SYNC, ws.size(), 0, null, 0, nowMs));
            } catch (InterruptedException e) {
                // Stopping (RoundRunner.stop interrupts the round): keep the flag, write nothing more.
                Thread.currentThread().interrupt();
                log.info("ccfair round stopped while writing {}", d);
                return;
            } catch (Exception e) {
                int attempts = st == null || st.state() != PushStatus.State.FAILED ? 1 : st.attempts() + 1;
                long backoff = Math.min(retryMaxMs, retryInitialMs << Math.min(attempts - 1, 30));
                String msg = e.getMessage() == null ? e.toString() : e.getMessage();
                status.put(d, new PushStatus(PushStatus.State.FAILED, ws.size(), attempts, msg, nowMs + backoff,
                                             nowMs));
                log.warn("ccfair policy push to {} failed (attempt {}, {} writes), retry in {} ms: {}",
                         d, attempts, ws.size(), backoff, msg);
            }
        }
    }

    // The delta base is this engine's record of what it wrote; ONOS's flow-rule
    // store holds the same entries (every write goes through FlowRuleService) and
    // ONOS reconciles the device against the store. If the store's count of this
    // app's entries differs from the installed policy's (purge on disconnection,
    // rules removed by hand or by another node), the base is wrong: full push.
    private boolean storeAgrees(String d, DevicePolicy from) {
        long stored;
        try {
            stored = writer.storedEntries(d);
        } catch (RuntimeException e) {
            log.warn("ccfair cannot count the stored entries of {}: {}", d, e.toString());
            return true;
        }
        long expected = delta.entries(from);
        if (stored >= 0 && stored != expected) {
            log.warn("ccfair: the flow-rule store holds {} ccfair entries of {}, the installed policy has {};"
                             + " pushing everything again", stored, d, expected);
            return false;
        }
        return true;
    }

    /**
     * Forgets what a device runs, so the next round pushes everything
     * (device reconnected, pipeline reset, mastership regained). A full push
     * replaces: the writer also removes this app's entries of the device that
     * the policy no longer has.
     *
     * @param deviceId device id
     */
    public synchronized void resync(String deviceId) {
        installed.remove(deviceId);
        PushStatus st = status.get(deviceId);
        if (st != null && st.state() == PushStatus.State.FAILED) {
            status.remove(deviceId); // retry at once
        }
    }

    /**
     * Last computed policy of every device.
     *
     * @return device id to policy
     */
    public synchronized SortedMap<String, DevicePolicy> policies() {
        return new TreeMap<>(target);
    }

    /**
     * Push status of every device.
     *
     * @return device id to status
     */
    public synchronized SortedMap<String, PushStatus> status() {
        return new TreeMap<>(status);
    }

    /**
     * The compiler (for its defaults).
     *
     * @return compiler
     */
    public PolicyCompiler compiler() {
        return compiler;
    }
}
