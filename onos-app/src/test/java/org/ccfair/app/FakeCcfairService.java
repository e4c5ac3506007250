/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app;

import org.ccfair.app.compute.DevicePolicy;
import org.ccfair.app.compute.FabricView;
import org.ccfair.app.compute.StatsSnapshot;
import org.ccfair.app.policy.FairnessIntent;
import org.ccfair.app.policy.IntentJson;
import org.ccfair.app.policy.IntentStore;
import org.ccfair.app.stats.GroupStats;
import org.onosproject.store.service.TestStorageService;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;

/**
 * CcfairService over ONOS's test store and a real engine with a recording
 * writer, for REST and CLI tests. recompute() runs synchronously.
 */
public class FakeCcfairService implements CcfairService {

    private final CcfairParams params = CcfairParams.load();
    private final IntentJson json = new IntentJson(params);
    private final IntentStore store = new IntentStore(new TestStorageService(), json);
    /** Writes per device, in order. */
    public final Map<String, Integer> written = new HashMap<>();
    private final PolicyEngine engine = new PolicyEngine(params, (d, ws) -> written.merge(d, ws.size(), Integer::sum));
    private final FabricView fabric;
    /** Statistics served per device. */
    public final Map<String, Map<Long, List<GroupStats>>> stats = new HashMap<>();

    /**
     * Creates the service over a fabric.
     *
     * @param fabric fabric
     */
    public FakeCcfairService(FabricView fabric) {
        this.fabric = fabric;
        recompute();
    }

    @Override
    public CcfairParams params() {
        return params;
    }

    @Override
    public IntentJson intentJson() {
        return json;
    }

    @Override
    public List<FairnessIntent> intents() {
        return store.all();
    }

    @Override
    public Optional<FairnessIntent> intent(String id) {
        return store.get(id);
    }

    @Override
    public boolean addIntent(FairnessIntent intent) {
        return store.create(intent);
    }

    @Override
    public Optional<FairnessIntent> putIntent(FairnessIntent intent) {
        return store.put(intent);
    }

    @Override
    public Optional<FairnessIntent> removeIntent(String id) {
        return store.remove(id);
    }

    @Override
    public SortedMap<String, DevicePolicy> policies() {
        return engine.policies();
    }

    @Override
    public double[] shareCorrection(String deviceId, long port) {
        return engine.compiler().correction().current(deviceId, port);
    }

    @Override
    public Map<Long, List<GroupStats>> stats(String deviceId) {
        return stats.getOrDefault(deviceId, Map.of());
    }

    @Override
    public SortedMap<String, PushStatus> pushStatus() {
        return engine.status();
    }

    @Override
    public void recompute() {
        engine.run(fabric, store.all(), StatsSnapshot.EMPTY, d -> true, 0);
    }
}
