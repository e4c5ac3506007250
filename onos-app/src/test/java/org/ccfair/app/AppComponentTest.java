/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.ccfair.app.compute.PolicyDelta;
import org.ccfair.app.pipeconf.CloneSessions;
import org.ccfair.app.pipeconf.FakeFlowRuleService;
import org.ccfair.app.pipeconf.FakeGroupService;
import org.ccfair.app.pipeconf.FlowRuleWriter;
import org.ccfair.app.stats.GroupStats;
import org.junit.Test;
import org.onlab.packet.ChassisId;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreServiceAdapter;
import org.onosproject.core.DefaultApplicationId;
import org.onosproject.net.DefaultDevice;
import org.onosproject.net.DefaultPort;
import org.onosproject.net.Device;
import org.onosproject.net.DeviceId;
import org.onosproject.net.Port;
import org.onosproject.net.PortNumber;
import org.onosproject.net.config.ConfigApplyDelegate;
import org.onosproject.net.config.InvalidFieldException;
import org.onosproject.net.device.DeviceEvent;
import org.onosproject.net.device.DeviceListener;
import org.onosproject.net.device.DeviceService;
import org.onosproject.net.flow.FlowRuleOperation;
import org.onosproject.net.provider.ProviderId;
import org.onosproject.store.service.TestStorageService;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.fail;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

/**
 * Activation against ONOS test adapters, intents through the service, and netcfg.
 */
public class AppComponentTest {

    private AppComponent activate() {
        AppComponent app = unactivated();
        app.activate();
        return app;
    }

    /** An app activated with one device and its ports; the device listeners it adds land in `listeners`. */
    private static AppComponent activatedOn(Device dev, List<Port> ports, List<DeviceListener> listeners) {
        AppComponent app = unactivated();
        app.deviceService = devices(dev, ports, listeners);
        app.activate();
        return app;
    }

    static Device device(DeviceId id) {   // ContractExportTest uses these three too
        return new DefaultDevice(new ProviderId("test", "ccfair"), id, Device.Type.SWITCH, "", "", "", "",
                                 new ChassisId());
    }

    static Port port(Device dev, long number, boolean enabled) {
        return new DefaultPort(dev, PortNumber.portNumber(number), enabled, Port.Type.COPPER, 10_000);
    }

    /** An app with ONOS's test adapters wired in, before activate() (tests add services). */
    static AppComponent unactivated() {
        AppComponent app = new AppComponent();
        app.coreService = new CoreServiceAdapter() {
            @Override
            public ApplicationId registerApplication(String name) {
                return new DefaultApplicationId(7, name);
            }
        };
        app.storageService = new TestStorageService();
        app.rounds = ManualRounds::new;  // no background round: each test runs the rounds it asserts on
        return app;
    }

    @Test
    public void activationRegistersAppAndLoadsParams() {
        AppComponent app = activate();
        assertEquals(AppComponent.APP_NAME, app.appId().name());
        assertNotNull(app.params());
        assertEquals(2 + 3 * app.params().k(), app.params().numGroups());
        assertTrue(app.intents().isEmpty());
        assertTrue(app.addIntent(app.intentJson().fromText("{\"id\":\"x\"}")));
        assertEquals(1, app.intents().size());
        app.recomputeNow();
        assertTrue("no device service: empty fabric", app.policies().isEmpty());
        app.deactivate();
    }

    private static CcfairConfig config(String json) throws Exception {
        CcfairConfig c = new CcfairConfig();
        JsonNode n = new ObjectMapper().readTree(json);
        ConfigApplyDelegate none = cfg -> { };
        c.init(new DefaultApplicationId(1, "org.ccfair.app"), CcfairConfig.KEY, n, new ObjectMapper(), none);
        return c;
    }

    @Test
    public void netcfgIntents() throws Exception {
        CcfairConfig ok = config("{\"intents\":[{\"id\":\"a\"},{\"id\":\"b\",\"priority\":5}]}");
        assertTrue(ok.isValid());
        assertEquals(2, ok.intents().size());
        CcfairConfig bad = config("{\"intents\":[{\"id\":\"a\"},{\"id\":\"a\"},{\"id\":\"c\",\"priority\":-1}]}");
        assertEquals(List.of("intents[1]: id 'a' listed twice", "intents[2].priority: -1 outside [0, 65535]"),
                     bad.problems());
        invalid(bad, "intents[1]: id 'a' listed twice; intents[2].priority: -1 outside [0, 65535]");
        invalid(config("{\"intents\":{}}"), "intents: expected an array of intents");
        invalid(config("{\"recompute_period_ms\":5}"), "recompute_period_ms: 5 is not an integer >= 100");
        AppComponent app = activate();
        assertEquals(CcfairParams.load().integer("controller", "recompute_period_ms"), app.recomputePeriodMs());
        app.applyConfig(config("{\"recompute_period_ms\":250,\"intents\":[{\"id\":\"n1\"}]}"));
        assertEquals(250, app.recomputePeriodMs());
        assertEquals("n1", app.intents().get(0).id());
        app.applyConfig(config("{\"recompute_period_ms\":300,\"intents\":[{\"id\":\"n2\"},{\"id\":\"-\"}]}"));
        assertEquals("an invalid config changes nothing", 250, app.recomputePeriodMs());
        assertEquals(1, app.intents().size());
        app.deactivate();
        invalid(config("{\"intents\":[],\"x\":1}"), "\"x\"");
        invalid(config("{\"stats_indices\":{\"device:a\":{\"1\":0,\"2\":0}}}"), "index 0 given twice");
        invalid(config("{\"stats_indices\":{\"device:a\":{\"1\":127}}}"), "stats_indices.device:a.1: 127 is not");
        invalid(config("{\"stats_indices\":{\"device:a\":{\"x\":1}}}"), "'x' is not a port number");
        invalid(config("{\"stats_indices\":[]}"), "stats_indices: expected an object");
    }

    private static void invalid(CcfairConfig c, String text) {
        try {
            c.isValid();
            fail("accepted");
        } catch (InvalidFieldException e) {
            assertTrue(e.getMessage(), e.getMessage().contains(text));
        }
    }

    // Only what AppComponent asks of a DeviceService: one available switch, its ports, listeners
    // (ContractExportTest uses it too).
    static DeviceService devices(Device dev, List<Port> ports, List<DeviceListener> listeners) {
        return (DeviceService) Proxy.newProxyInstance(
                DeviceService.class.getClassLoader(), new Class<?>[]{DeviceService.class}, (proxy, m, args) -> {
                    switch (m.getName()) {
                        case "getAvailableDevices":
                        case "getDevices":
                            return List.of(dev);
                        case "getDevice":
                            return dev;
                        case "getPorts":
                            return ports;
                        case "isAvailable":
                            return true;
                        case "addListener":
                            listeners.add((DeviceListener) args[0]);
                            return null;
                        case "removeListener":
                            listeners.remove(args[0]);
                            return null;
                        default:
                            throw new UnsupportedOperationException(m.getName());
                    }
                });
    }

    @Test
    public void deviceReconnectReappliesRulesThroughFlowRuleService() throws Exception {
        DeviceId id = DeviceId.deviceId("device:leaf1");
        Device dev = device(id);
        List<Port> ports = List.of(port(dev, 1, true), port(dev, 2, true));
        List<DeviceListener> listeners = new ArrayList<>();
        AppComponent app = activatedOn(dev, ports, listeners);
        try {
            FakeFlowRuleService flows = new FakeFlowRuleService();
            FakeGroupService groups = new FakeGroupService();
            app.bind(new FlowRuleWriter(app.params(), app.appId(), flows, groups, d -> "tofino", 1000),
                     (d, p) -> Map.of());
            app.recomputeNow();
            long entries = new PolicyDelta(app.params()).entries(app.policies().get(id.toString()));
            assertEquals(entries, flows.deviceContents(id).size());
            assertNotNull(groups.getGroup(id, CloneSessions.key(0)));
            assertEquals(1, listeners.size());

            // The switch comes back without its tables; ONOS reports it available again.
            flows.wipeDevice(id);
            int from;
            synchronized (flows) {
                from = flows.stages.size();
            }
            listeners.get(0).event(new DeviceEvent(DeviceEvent.Type.DEVICE_AVAILABILITY_CHANGED, dev));
            app.recomputeNow();
            long readded;
            synchronized (flows) {
                readded = flows.stages.subList(from, flows.stages.size()).stream().flatMap(List::stream)
                        .filter(o -> o.type() == FlowRuleOperation.Type.ADD).count();
            }
            assertEquals("the event makes the next round a full push", entries, readded);
            assertEquals(flows.storeContents(id), flows.deviceContents(id));
            assertEquals(entries, flows.deviceContents(id).size());
            assertEquals(PushStatus.State.IN_SYNC, app.pushStatus().get(id.toString()).state());

            // ONOS purges the app's rules with no device event (e.g. purge-on-disconnection):
            // the engine AppComponent builds must see the store disagree and push in full.
            flows.purge(id);
            app.recomputeNow();
            assertEquals("the store count check reaches the bound writer", entries, flows.storeContents(id).size());
            assertEquals(flows.storeContents(id), flows.deviceContents(id));
        } finally {
            app.deactivate();
        }
    }

    /**
     * The reclassification signal: ONOS 2.7 delivers no P4Runtime digest to an app, so a flow the
     * switch moves from mouse to a long-lived group is seen in the next round's per-group
     * active-flow counters (pg_flow_enter - pg_flow_leave), and that round's policy follows it.
     */
    @Test
    public void aReclassificationReachesTheNextRoundsPolicy() throws Exception {
        DeviceId id = DeviceId.deviceId("device:leaf1");
        Device dev = device(id);
        List<Port> ports = List.of(port(dev, 1, true), port(dev, 2, true));
        AppComponent app = activatedOn(dev, ports, new ArrayList<>());
        try {
            int mouse = (int) app.params().integer("groups", "mouse");
            int delay0 = app.params().groupId("delay", 0);
            List<GroupStats> now = java.util.Collections.synchronizedList(new ArrayList<>());
            now.add(new GroupStats(mouse, 8, 0, 0, 0, 0));
            app.bind(new FlowRuleWriter(app.params(), app.appId(), new FakeFlowRuleService(), new FakeGroupService(),
                                        d -> "tofino", 1000),
                     (d, p) -> Map.of(1L, List.copyOf(now)));
            app.recomputeNow();
            assertEquals("8 mice and no long-lived flow: the link's bin (D7)", 96,
                         app.policies().get(id.toString()).port(1).fairRateBin());
            // The switch reclassified the 8 flows: they left the mouse group and entered delay 0.
            now.clear();
            now.add(new GroupStats(mouse, 0, 0, 0, 0, 0));
            now.add(new GroupStats(delay0, 8, 0, 0, 0, 0));
            app.recomputeNow();
            assertEquals("8 long-lived flows: 10 Gbit/s / 8 -> bin 81", 81,
                         app.policies().get(id.toString()).port(1).fairRateBin());
            assertTrue("the delay group gets its share of queues",
                       app.policies().get(id.toString()).port(1).queues(delay0) >= 1);
        } finally {
            app.deactivate();
        }
    }

    @Test
    public void statsAreReadAtTheIndicesOfAllTheDevicesPorts() throws Exception {
        DeviceId id = DeviceId.deviceId("device:leaf1");
        Device dev = device(id);
        // SDN port numbers; 150 is disabled: not configured, but it keeps its index.
        List<Port> ports = List.of(port(dev, 300, true), port(dev, 150, false), port(dev, 100, true));
        AppComponent app = activatedOn(dev, ports, new ArrayList<>());
        try {
            List<Map<Long, Integer>> asked = java.util.Collections.synchronizedList(new ArrayList<>());
            app.bind(new FlowRuleWriter(app.params(), app.appId(), new FakeFlowRuleService(), new FakeGroupService(),
                                        d -> "tofino", 1000),
                     (d, p) -> {
                         asked.add(p);
                         return Map.of();
                     });
            app.recomputeNow();
            assertFalse(asked.isEmpty());
            assertEquals("one round, one read", List.of(Map.of(100L, 0, 300L, 2)), asked);
            assertEquals(2, app.policies().get(id.toString()).port(300).statsIndex());
            assertNull(app.policies().get(id.toString()).port(150));

            // netcfg fixes the device's indices: port 300 gets 5, port 100 (not listed) none.
            app.applyConfig(config("{\"stats_indices\":{\"device:leaf1\":{\"300\":5}}}"));
            asked.clear();
            app.recomputeNow();
            assertEquals(List.of(Map.of(300L, 5)), asked);
            assertEquals(5, app.policies().get(id.toString()).port(300).statsIndex());
            assertNull("a port netcfg leaves out is not configured", app.policies().get(id.toString()).port(100));
        } finally {
            app.deactivate();
        }
    }

    /** Rounds wait for bind(): before it a round has nowhere to write; bind() asks for one round. */
    @Test
    public void roundsStartAtBindAndNeverRunInTheBackgroundOfATest() throws Exception {
        DeviceId id = DeviceId.deviceId("device:leaf1");
        Device dev = device(id);
        ManualRounds rounds = new ManualRounds();
        AppComponent app = unactivated();
        app.rounds = () -> rounds;
        app.deviceService = devices(dev, List.of(port(dev, 1, true)), new ArrayList<>());
        app.activate();
        try {
            assertEquals(app.params().integer("controller", "recompute_period_ms"), rounds.periodMs);
            app.recomputeNow();
            assertTrue("no writer bound: the round computes nothing", app.policies().isEmpty());
            FakeFlowRuleService flows = new FakeFlowRuleService();
            app.bind(new FlowRuleWriter(app.params(), app.appId(), flows, new FakeGroupService(), d -> "tofino",
                                        1000), (d, p) -> Map.of());
            assertTrue("bind() only submits its round", flows.deviceContents(id).isEmpty());
            assertEquals(1, rounds.runSubmitted());
            assertFalse(flows.deviceContents(id).isEmpty());
        } finally {
            app.deactivate();
        }
        assertTrue(rounds.stopped);
    }

    /** ONOS's runner: stop() returns only once the round in progress has ended. */
    @Test
    public void backgroundRunnerStopWaitsForTheRoundInProgress() throws Exception {
        RoundRunner r = RoundRunner.background("test-rounds", 10_000);
        java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean ended = new java.util.concurrent.atomic.AtomicBoolean();
        r.submit(() -> {
            started.countDown();
            long until = System.nanoTime() + 200_000_000L;  // busy, ignoring the interrupt stop() sends
            while (System.nanoTime() < until) {
                Thread.onSpinWait();
            }
            ended.set(true);
        });
        assertTrue(started.await(10, java.util.concurrent.TimeUnit.SECONDS));
        r.stop();
        assertTrue("stop() returned while the round still ran", ended.get());
    }
}
