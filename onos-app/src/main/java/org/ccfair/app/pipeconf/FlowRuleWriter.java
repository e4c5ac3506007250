/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.pipeconf;

import org.ccfair.app.CcfairParams;
import org.ccfair.app.DeviceWriter;
import org.ccfair.app.compute.PolicyWrite;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.FlowEntry;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleOperations;
import org.onosproject.net.flow.FlowRuleOperationsContext;
import org.onosproject.net.flow.FlowRuleService;
import org.onosproject.net.flow.TableId;
import org.onosproject.net.flow.TrafficSelector;
import org.onosproject.net.group.Group;
import org.onosproject.net.group.GroupDescription;
import org.onosproject.net.group.GroupService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * Writes policy through ONOS's services: every table entry is a flow rule of
 * the ccfair app applied with {@link FlowRuleService}, the group-update clone
 * sessions are CLONE groups applied with {@link GroupService}. Nothing is
 * written to the device behind ONOS's back, so the P4Runtime driver's
 * reconciliation (which deletes table entries its flow-rule store does not
 * know) keeps every ccfair entry, and ONOS re-installs entries and groups that
 * a device lost (reconnect, pipeline re-push).
 *
 * <p><b>Ordering.</b> The writes come in batches ({@link PolicyWrite#batch()},
 * make before break, see {@link org.ccfair.app.compute.PolicyDelta}). Each
 * batch is one {@link FlowRuleOperations} stage, and the writer submits the
 * next stage only after ONOS reported the previous one done on the device
 * (ONOS completes a stage when the driver's write returned). It does not put
 * all batches in one multi-stage FlowRuleOperations: ONOS orders such stages
 * but, when a stage fails, still runs the later ones
 * (FlowRuleManager.FlowOperationsProcessor), which could flip a port to an
 * incomplete TVF profile. One stage per apply stops at the first failed batch,
 * as {@link DeviceWriter} requires.</p>
 *
 * <p><b>Idempotency.</b> An INSERT or MODIFY is an ADD of the flow rule (ONOS
 * replaces a stored rule with the same flow id and match, and the driver sends
 * MODIFY for an entry the device has). A DELETE removes the stored flow entry
 * with the rule's match (table, selector, priority); if the store has none,
 * there is nothing to delete. A full push also removes, in a last stage, this
 * app's entries of the device that the pushed policy does not have (left by an
 * earlier policy or master).</p>
 *
 * <p><b>Match, not flow id.</b> The writer finds stored entries by {@link MatchKey}.
 * A flow id is the app id and a 32-bit hash of the match, so two of a device's
 * thousands of entries can share one (ONOS's store keeps both, told apart by
 * match); looked up by id, a DELETE could remove the other entry and a full
 * push could keep a stale one.</p>
 */
public final class FlowRuleWriter implements DeviceWriter {

    private final Logger log = LoggerFactory.getLogger(getClass());

    private final CcfairParams params;
    private final ApplicationId appId;
    private final FlowRuleService flowRules;
    private final GroupService groups;
    private final Function<DeviceId, String> profileOf;
    private final long timeoutMs;
    private final CloneSessions sessions;
    private final Map<String, PolicyTranslator> translators = new ConcurrentHashMap<>();

    /**
     * Creates the writer.
     *
     * @param params    shared parameters
     * @param appId     the ccfair application id (owner of every rule and group)
     * @param flowRules ONOS flow-rule service
     * @param groups    ONOS group service
     * @param profileOf profile ("tofino" or "tofino2") of a device's pipeconf
     * @param timeoutMs how long to wait for ONOS to complete one stage
     */
    public FlowRuleWriter(CcfairParams params, ApplicationId appId, FlowRuleService flowRules,
                          GroupService groups, Function<DeviceId, String> profileOf, long timeoutMs) {
        this.params = params;
        this.appId = appId;
        this.flowRules = flowRules;
        this.groups = groups;
        this.profileOf = profileOf;
        this.timeoutMs = timeoutMs;
        this.sessions = new CloneSessions(params);
    }

    private PolicyTranslator translator(String profile) {
        return translators.computeIfAbsent(profile, p -> new PolicyTranslator(params, p));
    }

    @Override
    public void write(String deviceId, List<PolicyWrite> writes) throws Exception {
        write(deviceId, writes, false);
    }

    @Override
    public void write(String device, List<PolicyWrite> writes, boolean full) throws Exception {
        DeviceId id = DeviceId.deviceId(device);
        String profile = profileOf.apply(id);
        PolicyTranslator tr = translator(profile);
        // Clone sessions first: egress may mirror on any port of the policy, whatever its pipe.
        ensureCloneSessions(id, profile);
        Map<MatchKey, FlowEntry> stored = stored(id);
        Set<MatchKey> kept = new HashSet<>();
        int i = 0;
        while (i < writes.size()) {
            int batch = writes.get(i).batch();
            FlowRuleOperations.Builder ops = FlowRuleOperations.builder();
            int n = 0;
            for (; i < writes.size() && writes.get(i).batch() == batch; i++) {
                PolicyWrite w = writes.get(i);
                FlowRule rule = tr.flowRule(id, appId, w);
                if (w.op() == PolicyWrite.Op.DELETE) {
                    FlowEntry e = stored.get(MatchKey.of(rule));
                    if (e != null) {
                        ops.remove(e);
                        n++;
                    }
                } else {
                    ops.add(rule);
                    kept.add(MatchKey.of(rule));
                    n++;
                }
            }
            if (n > 0) {
                apply(ops, device, "batch " + batch + " (" + n + " rules)");
            }
        }
        if (full) {
            FlowRuleOperations.Builder ops = FlowRuleOperations.builder();
            int n = 0;
            for (Map.Entry<MatchKey, FlowEntry> e : stored.entrySet()) {
                if (!kept.contains(e.getKey())) {
                    ops.remove(e.getValue());
                    n++;
                }
            }
            if (n > 0) {
                log.info("ccfair: removing {} entries of {} that the pushed policy does not have", n, device);
                apply(ops, device, "stale entries (" + n + " rules)");
            }
        }
    }

    // One stage, applied and waited for; throws if ONOS reports a failure.
    private void apply(FlowRuleOperations.Builder ops, String device, String what) throws Exception {
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        flowRules.apply(ops.build(new FlowRuleOperationsContext() {
            @Override
            public void onSuccess(FlowRuleOperations o) {
                done.complete(true);
            }

            @Override
            public void onError(FlowRuleOperations o) {
                done.complete(false);
            }
        }));
        boolean ok;
        try {
            ok = done.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException("flow rules of " + what + " on " + device + " not confirmed within "
                                                    + timeoutMs + " ms", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("flow rules of " + what + " on " + device + " failed", e.getCause());
        }
        if (!ok) {
            throw new IllegalStateException("flow rules of " + what + " on " + device + " failed");
        }
    }

    // This app's entries of a device in ONOS's store, by match (not those being removed).
    // One match is one entry on the device (P4Runtime keys entries by match).
    private Map<MatchKey, FlowEntry> stored(DeviceId id) {
        Map<MatchKey, FlowEntry> out = new LinkedHashMap<>();
        for (FlowEntry e : flowRules.getFlowEntries(id)) {
            if (e.appId() == appId.id() && live(e)) {
                out.put(MatchKey.of(e), e);
            }
        }
        return out;
    }

    private static boolean live(FlowEntry e) {
        return e.state() != FlowEntry.FlowEntryState.PENDING_REMOVE
                && e.state() != FlowEntry.FlowEntryState.REMOVED;
    }

    @Override
    public long storedEntries(String device) {
        return stored(DeviceId.deviceId(device)).size();
    }

    /**
     * Installs the clone session of every pipe of the device that has none (or
     * replaces one with other buckets), and removes this app's sessions of
     * pipes beyond the device's pipe count (left by an earlier params file).
     * Groups go to ONOS's group store, which re-installs them on a device that
     * lost them.
     *
     * @param id      device
     * @param profile profile
     */
    void ensureCloneSessions(DeviceId id, String profile) {
        for (int pipe = sessions.pipes(profile); pipe < CloneSessions.MAX_PIPES; pipe++) {
            Group extra = groups.getGroup(id, CloneSessions.key(pipe));
            if (extra != null && appId.equals(extra.appId())) {
                log.info("ccfair: removing clone session {} of {} (pipe {} beyond the pipe count)", extra.id(), id,
                         pipe);
                groups.removeGroup(id, CloneSessions.key(pipe), appId);
            }
        }
        for (GroupDescription want : sessions.groups(id, appId, profile)) {
            Group have = groups.getGroup(id, want.appCookie());
            if (have == null) {
                log.info("ccfair: clone session {} on {}", want.givenGroupId(), id);
                groups.addGroup(want);
            } else if (!CloneSessions.sameId(have, want)) {
                // A group id cannot change in place: remove now, the next push adds it.
                log.warn("ccfair: clone session of {} has id {}, expected {}; removing it", id, have.id(),
                         want.givenGroupId());
                groups.removeGroup(id, want.appCookie(), appId);
            } else if (!have.buckets().equals(want.buckets())) {
                groups.setBucketsForGroup(id, want.appCookie(), want.buckets(), want.appCookie(), appId);
            }
        }
    }

    /**
     * What identifies a flow rule of a device in ONOS's store and a table entry
     * on the device: table, selector (the match fields) and priority, as
     * DefaultFlowRule.equals compares them (the device is fixed per write).
     */
    static final class MatchKey {
        private final TableId table;
        private final TrafficSelector selector;
        private final int priority;

        private MatchKey(TableId table, TrafficSelector selector, int priority) {
            this.table = table;
            this.selector = selector;
            this.priority = priority;
        }

        static MatchKey of(FlowRule r) {
            return new MatchKey(r.table(), r.selector(), r.priority());
        }

        @Override
        public boolean equals(Object o) {
            if (this == o) {
                return true;
            }
            if (!(o instanceof MatchKey)) {
                return false;
            }
            MatchKey k = (MatchKey) o;
            return priority == k.priority && table.equals(k.table) && selector.equals(k.selector);
        }

        @Override
        public int hashCode() {
            return Objects.hash(table, selector, priority);
        }
    }
}
