/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.pipeconf;

import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.DefaultFlowEntry;
import org.onosproject.net.flow.FlowEntry;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleOperation;
import org.onosproject.net.flow.FlowRuleOperations;
import org.onosproject.net.flow.FlowRuleServiceAdapter;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * ONOS's flow-rule subsystem in miniature: a store (by flow id and match, as
 * ONOS's FlowBucket keeps rules of one flow id apart by rule equality), the
 * tables of the devices, stages applied in order (like FlowRuleManager, a
 * failed stage reports onError and the later stages of the same operations
 * still run), and {@link #reconcile}, which does what the P4Runtime driver's
 * flow-rule programmable and FlowRuleManager do every poll: entries on the
 * device that the store does not know are deleted, store entries missing
 * on the device are written again.
 */
public class FakeFlowRuleService extends FlowRuleServiceAdapter {

    /** ONOS's flow-rule store, by {@link #storeKey}: two rules with one flow id (a hash) are two entries. */
    public final Map<List<Object>, FlowEntry> store = new LinkedHashMap<>();
    /** What the devices' tables hold, by match key (device, table, selector, priority). */
    public final Map<List<Object>, FlowRule> tables = new LinkedHashMap<>();
    /** Every stage applied, in order. */
    public final List<List<FlowRuleOperation>> stages = new ArrayList<>();
    /** Number of stages of each apply() call, in order. */
    public final List<Integer> stagesPerApply = new ArrayList<>();
    /** Index (in {@link #stages}) of the stage that fails, or -1. */
    public int failStage = -1;

    /**
     * Match key of a rule on a device.
     *
     * @param r rule
     * @return key
     */
    public static List<Object> key(FlowRule r) {
        return List.of(r.deviceId(), r.table(), r.selector(), r.priority());
    }

    /**
     * Key of a rule in the store: flow id and match (ONOS 2.7's FlowBucket maps a flow id to the
     * rules with that id, told apart by device, table, selector and priority).
     *
     * @param r rule
     * @return key
     */
    public static List<Object> storeKey(FlowRule r) {
        return List.of(r.id(), key(r));
    }

    /**
     * Puts a rule into the store only (not on the device).
     *
     * @param r rule
     */
    public synchronized void addToStore(FlowRule r) {
        store.put(storeKey(r), new DefaultFlowEntry(r, FlowEntry.FlowEntryState.ADDED));
    }

    /**
     * A rule as the device holds it: key and action.
     *
     * @param r rule
     * @return key and treatment
     */
    public static List<Object> content(FlowRule r) {
        return List.of(r.deviceId(), r.table(), r.selector(), r.priority(), r.treatment());
    }

    @Override
    public synchronized void apply(FlowRuleOperations ops) {
        stagesPerApply.add(ops.stages().size());
        boolean failed = false;
        for (Set<FlowRuleOperation> st : ops.stages()) {
            stages.add(new ArrayList<>(st));
            if (stages.size() - 1 == failStage) {
                failed = true;
                if (ops.callback() != null) {
                    ops.callback().onError(ops);
                }
                continue;
            }
            for (FlowRuleOperation op : st) {
                FlowRule r = op.rule();
                if (op.type() == FlowRuleOperation.Type.REMOVE) {
                    store.remove(storeKey(r));
                    tables.remove(key(r));
                } else {
                    addToStore(r);
                    tables.put(key(r), r);
                }
            }
        }
        if (!failed && ops.callback() != null) {
            ops.callback().onSuccess(ops);
        }
    }

    @Override
    public synchronized Iterable<FlowEntry> getFlowEntries(DeviceId deviceId) {
        List<FlowEntry> out = new ArrayList<>();
        store.values().stream().filter(e -> e.deviceId().equals(deviceId)).forEach(out::add);
        return out;
    }

    @Override
    public synchronized Iterable<FlowEntry> getFlowEntriesById(org.onosproject.core.ApplicationId id) {
        List<FlowEntry> out = new ArrayList<>();
        store.values().stream().filter(e -> e.appId() == id.id()).forEach(out::add);
        return out;
    }

    @Override
    public synchronized int getFlowRuleCount() {
        return store.size();
    }

    /**
     * Writes an entry straight to the device, past the store (what the app did
     * with P4RuntimeClient before).
     *
     * @param r rule
     */
    public synchronized void writeBehindOnos(FlowRule r) {
        tables.put(key(r), r);
    }

    /**
     * One reconciliation pass of ONOS: deletes device entries the store does
     * not have, writes store entries the device lacks or holds with another action.
     *
     * @return number of entries deleted from the devices
     */
    public synchronized int reconcile() {
        Map<List<Object>, FlowRule> want = new LinkedHashMap<>();
        store.values().forEach(e -> want.put(key(e), e));
        Set<List<Object>> inconsistent = new HashSet<>(tables.keySet());
        inconsistent.removeAll(want.keySet());
        inconsistent.forEach(tables::remove);
        for (Map.Entry<List<Object>, FlowRule> e : want.entrySet()) {
            FlowRule have = tables.get(e.getKey());
            if (have == null || !have.treatment().equals(e.getValue().treatment())) {
                tables.put(e.getKey(), e.getValue());
            }
        }
        return inconsistent.size();
    }

    /**
     * The device lost its tables (reconnect after a reboot, pipeline re-push); the store keeps its rules.
     *
     * @param d device
     */
    public synchronized void wipeDevice(DeviceId d) {
        tables.keySet().removeIf(k -> k.get(0).equals(d));
    }

    /**
     * Purge on disconnection: the store forgets the device's rules too.
     *
     * @param d device
     */
    public synchronized void purge(DeviceId d) {
        wipeDevice(d);
        store.values().removeIf(e -> e.deviceId().equals(d));
    }

    /**
     * Contents (key and action) of a device's tables.
     *
     * @param d device
     * @return set of contents
     */
    public synchronized Set<List<Object>> deviceContents(DeviceId d) {
        Set<List<Object>> out = new HashSet<>();
        tables.values().stream().filter(r -> r.deviceId().equals(d)).forEach(r -> out.add(content(r)));
        return out;
    }

    /**
     * Contents (key and action) of the store's rules of a device.
     *
     * @param d device
     * @return set of contents
     */
    public synchronized Set<List<Object>> storeContents(DeviceId d) {
        Set<List<Object>> out = new HashSet<>();
        store.values().stream().filter(r -> r.deviceId().equals(d)).forEach(r -> out.add(content(r)));
        return out;
    }
}
