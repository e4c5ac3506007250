/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app;

import com.google.common.collect.ImmutableSet;
import org.ccfair.app.compute.Cocoa;
import org.ccfair.app.compute.DevicePolicy;
import org.ccfair.app.compute.FabricView;
import org.ccfair.app.compute.PolicyWrite;
import org.ccfair.app.compute.PortRole;
import org.ccfair.app.compute.StatsIndex;
import org.ccfair.app.policy.FairnessIntent;
import org.ccfair.app.policy.IntentJson;
import org.ccfair.app.policy.IntentStore;
import org.ccfair.app.policy.InvalidIntentException;
import org.ccfair.app.rest.FairnessIntentCodec;
import org.ccfair.app.stats.GroupStats;
import org.ccfair.app.stats.QueueStats;
import org.ccfair.app.stats.StatsCache;
import org.ccfair.app.stats.StatsSource;
import org.onosproject.codec.CodecService;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreService;
import org.onosproject.mastership.MastershipEvent;
import org.onosproject.mastership.MastershipListener;
import org.onosproject.mastership.MastershipService;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.Device;
import org.onosproject.net.DeviceId;
import org.onosproject.net.Link;
import org.onosproject.net.Port;
import org.onosproject.net.config.ConfigFactory;
import org.onosproject.net.config.NetworkConfigEvent;
import org.onosproject.net.config.NetworkConfigListener;
import org.onosproject.net.config.NetworkConfigRegistry;
import org.onosproject.net.config.basics.SubjectFactories;
import org.onosproject.net.device.DeviceEvent;
import org.onosproject.net.device.DeviceListener;
import org.onosproject.net.device.DeviceService;
import org.onosproject.net.link.LinkListener;
import org.onosproject.net.link.LinkService;
import org.onosproject.net.pi.service.PiPipeconfWatchdogEvent;
import org.onosproject.net.pi.service.PiPipeconfWatchdogListener;
import org.onosproject.net.pi.service.PiPipeconfWatchdogService;
import org.onosproject.store.service.MapEventListener;
import org.onosproject.store.service.StorageService;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * The ccfair application: keeps intents in the distributed store, recomputes
 * the fabric-wide policy every controller.recompute_period_ms and on
 * topology, device, mastership, pipeline and intent events, and pushes the
 * difference to the devices this node is master of.
 */
@Component(immediate = true, service = {AppComponent.class, CcfairService.class})
public class AppComponent implements CcfairService {

    /** ONOS application name, as in the .oar's app.xml. */
    public static final String APP_NAME = "org.ccfair.app";

    private final Logger log = LoggerFactory.getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected CoreService coreService;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL)
    protected StorageService storageService;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL)
    protected DeviceService deviceService;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL)
    protected LinkService linkService;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL)
    protected MastershipService mastershipService;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL)
    protected NetworkConfigRegistry netcfgRegistry;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL)
    protected PiPipeconfWatchdogService watchdogService;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL)
    protected CodecService codecService;

    /** Where rounds run; tests substitute a runner they drive by hand. */
    protected Supplier<RoundRunner> rounds =
            () -> RoundRunner.background("ccfair-recompute", ROUND_STOP_TIMEOUT_MS);

    /** The device writer and statistics source, bound together (P4RuntimeBinding, or tests). */
    private static final class Binding {
        final DeviceWriter writer;
        final StatsSource stats;

        Binding(DeviceWriter writer, StatsSource stats) {
            this.writer = writer;
            this.stats = stats;
        }
    }

    // How long deactivate() waits for a round in progress (above FlowRuleWriter's stage timeout).
    static final long ROUND_STOP_TIMEOUT_MS = 60_000;

    // Null until bind(): a round needs both halves, and reads them once (roundBinding).
    private volatile Binding binding;
    // The binding of the round in progress: the engine's writer calls go to it alone.
    private Binding roundBinding;
    private final Object roundLock = new Object();

    private ApplicationId appId;
    private CcfairParams params;
    private IntentJson json;
    private IntentStore store;
    private PolicyEngine engine;
    private final StatsCache statsCache = new StatsCache();
    // Origin of the statistics readings' monotonic time (the share correction's windows).
    private final long readingClockOrigin = System.nanoTime();
    // Stats indices netcfg fixes per device (CcfairConfig); other devices get StatsIndex.assign.
    private volatile Map<String, Map<Long, Integer>> fixedIndices = Map.of();
    private Cocoa cocoa;
    private volatile RoundRunner runner;
    // Set by deactivate() before it waits for the round in progress: no write starts after it.
    private volatile boolean stopping;
    private long periodMs;
    private final AtomicBoolean pending = new AtomicBoolean();

    private final ConfigFactory<ApplicationId, CcfairConfig> configFactory =
            new ConfigFactory<>(SubjectFactories.APP_SUBJECT_FACTORY, CcfairConfig.class, CcfairConfig.KEY) {
                @Override
                public CcfairConfig createConfig() {
                    return new CcfairConfig().codec(json);
                }
            };
    private final MapEventListener<String, String> intentListener = e -> recompute();
    private final DeviceListener deviceListener = new InternalDeviceListener();
    private final LinkListener linkListener = e -> recompute();
    private final MastershipListener mastershipListener = new InternalMastershipListener();
    private final NetworkConfigListener netcfgListener = new InternalNetcfgListener();
    private final PiPipeconfWatchdogListener watchdogListener = new InternalWatchdogListener();

    @Activate
    protected void activate() {
        appId = coreService.registerApplication(APP_NAME);
        params = CcfairParams.load();
        json = new IntentJson(params);
        // Forward every DeviceWriter method to the bound writer: a lambda would implement only
        // write(d, ws), leaving full pushes without stale-entry removal and the store check off.
        engine = new PolicyEngine(params, new DeviceWriter() {
            @Override
            public void write(String d, List<PolicyWrite> ws) throws Exception {
                checkNotStopping();
                roundBinding.writer.write(d, ws);
            }

            @Override
            public void write(String d, List<PolicyWrite> ws, boolean full) throws Exception {
                checkNotStopping();
                roundBinding.writer.write(d, ws, full);
            }

            @Override
            public long storedEntries(String d) {
                return roundBinding.writer.storedEntries(d);
            }
        });
        cocoa = new Cocoa(params);
        engine.compiler().setCocoa(cocoa);
        if (codecService != null) {
            codecService.registerCodec(FairnessIntent.class, new FairnessIntentCodec(json));
        }
        if (storageService != null) {
            store = new IntentStore(storageService, json);
            store.addListener(intentListener);
        }
        if (deviceService != null) {
            deviceService.addListener(deviceListener);
        }
        if (linkService != null) {
            linkService.addListener(linkListener);
        }
        if (mastershipService != null) {
            mastershipService.addListener(mastershipListener);
        }
        if (watchdogService != null) {
            watchdogService.addListener(watchdogListener);
        }
        stopping = false;
        pending.set(false);
        runner = rounds.get();
        periodMs = 0;
        schedule(params.integer("controller", "recompute_period_ms"));
        if (netcfgRegistry != null) {
            netcfgRegistry.registerConfigFactory(configFactory);
            netcfgRegistry.addListener(netcfgListener);
            applyConfig(netcfgRegistry.getConfig(appId, CcfairConfig.class));
        }
        log.info("Started {} with {} groups (K={}), recompute every {} ms", appId.name(), params.numGroups(),
                 params.k(), periodMs);
    }

    @Deactivate
    protected void deactivate() {
        // Detach first: recompute() and schedule() called while the round in progress ends
        // find no runner; then refuse writes, and wait for that round (stop() interrupts it).
        RoundRunner r = runner;
        runner = null;
        stopping = true;
        if (r != null) {
            r.stop();
        }
        if (codecService != null) {
            codecService.unregisterCodec(FairnessIntent.class);
        }
        if (store != null) {
            store.removeListener(intentListener);
        }
        if (deviceService != null) {
            deviceService.removeListener(deviceListener);
        }
        if (linkService != null) {
            linkService.removeListener(linkListener);
        }
        if (mastershipService != null) {
            mastershipService.removeListener(mastershipListener);
        }
        if (watchdogService != null) {
            watchdogService.removeListener(watchdogListener);
        }
        if (netcfgRegistry != null) {
            netcfgRegistry.removeListener(netcfgListener);
            netcfgRegistry.unregisterConfigFactory(configFactory);
        }
        log.info("Stopped");
    }

    /**
     * Binds the device writer and statistics source (the P4Runtime binding, or tests).
     *
     * @param w writer
     * @param s statistics source
     */
    public void bind(DeviceWriter w, StatsSource s) {
        this.binding = new Binding(w, s);  // one write: no round sees a new writer with an old source
        recompute();
    }

    /**
     * Application id registered at activation.
     *
     * @return the id, or null before activation
     */
    public ApplicationId appId() {
        return appId;
    }

    @Override
    public CcfairParams params() {
        return params;
    }

    @Override
    public IntentJson intentJson() {
        return json;
    }

    private IntentStore store() {
        if (store == null) {
            throw new IllegalStateException("ONOS storage service not available");
        }
        return store;
    }

    @Override
    public List<FairnessIntent> intents() {
        return store().all();
    }

    @Override
    public Optional<FairnessIntent> intent(String id) {
        return store().get(id);
    }

    @Override
    public boolean addIntent(FairnessIntent intent) {
        return store().create(intent);
    }

    @Override
    public Optional<FairnessIntent> putIntent(FairnessIntent intent) {
        return store().put(intent);
    }

    @Override
    public Optional<FairnessIntent> removeIntent(String id) {
        return store().remove(id);
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
        return statsCache.device(deviceId);
    }

    @Override
    public SortedMap<String, PushStatus> pushStatus() {
        return engine.status();
    }

    @Override
    public void recompute() {
        // Coalesce bursts of events into one round.
        RoundRunner r = runner;
        if (r != null && pending.compareAndSet(false, true)) {
            try {
                r.submit(() -> {
                    pending.set(false);
                    recomputeSafely();
                });
            } catch (RejectedExecutionException e) {
                pending.set(false);  // stopped meanwhile
            }
        }
    }

    /**
     * (Re)starts the periodic recomputation.
     *
     * @param ms period
     */
    synchronized void schedule(long ms) {
        // The share correction's windows last about a round: a round an event triggers
        // sooner reads the flows but leaves the window open (StatsCache).
        statsCache.setMinWindowMs(ms / 2);
        RoundRunner r = runner;
        if (r == null || ms == periodMs) {
            return;
        }
        try {
            r.every(ms, this::recomputeSafely);
            periodMs = ms;
        } catch (RejectedExecutionException e) {
            log.debug("ccfair: not rescheduled, stopping");
        }
    }

    /**
     * Current recomputation period.
     *
     * @return ms
     */
    public long recomputePeriodMs() {
        return periodMs;
    }

    private void recomputeSafely() {
        try {
            recomputeNow();
        } catch (RuntimeException e) {
            log.error("ccfair recomputation failed", e);
        }
    }

    /**
     * One round: read statistics of mastered devices, compile, push. Rounds never overlap
     * (whoever calls), and one before bind() does nothing: it has nowhere to write.
     */
    void recomputeNow() {
        synchronized (roundLock) {
            Binding b = binding;
            if (b == null) {
                log.debug("ccfair round skipped: no device writer bound yet");
                return;
            }
            roundBinding = b;
            try {
                round(b.stats);
            } finally {
                roundBinding = null;
            }
        }
    }

    private void checkNotStopping() throws InterruptedException {
        if (stopping) {
            throw new InterruptedException("ccfair is stopping");
        }
    }

    private void round(StatsSource statsSource) {
        FabricView fabric = fabric();
        List<FairnessIntent> intents = store == null ? List.of() : store.all();
        for (String d : fabric.deviceIds()) {
            if (!isMaster(d)) {
                continue;
            }
            // Each port's cells are at its stats index, the one its port configuration carries.
            Map<Long, Integer> ports = new HashMap<>();
            fabric.ports(d).forEach(p -> {
                if (p.statsIndex() >= 0 && p.statsIndex() < statsIndices()) {
                    ports.put(p.number(), p.statsIndex());
                }
            });
            try {
                // A reading's time: the middle of its read, on a monotonic clock (the share
                // correction divides what a group forwarded by the time between two readings).
                long t0 = System.nanoTime();
                Map<Long, List<GroupStats>> read = statsSource.read(d, ports);
                long t1 = System.nanoTime();
                statsCache.update(d, read, ((t0 - readingClockOrigin) + (t1 - readingClockOrigin)) / 2_000_000);
                observeQueues(statsSource, d, fabric, ports);
            } catch (Exception e) {
                log.warn("ccfair cannot read statistics of {}: {}", d, e.getMessage());
            }
        }
        engine.run(fabric, intents, statsCache.snapshot(params.numGroups()), this::isMaster,
                   System.currentTimeMillis());
    }

    // Feeds the Cocoa loop with this round's per-queue counters (adaptive buffers).
    private void observeQueues(StatsSource statsSource, String d, FabricView fabric, Map<Long, Integer> ports)
            throws Exception {
        int numQueues = engine.compiler().numQueues();
        Map<Long, List<QueueStats>> queues = statsSource.readQueues(d, ports, numQueues);
        Map<Long, List<GroupStats>> groups = statsCache.device(d);
        long now = System.currentTimeMillis();
        for (FabricView.Port p : fabric.ports(d)) {
            List<QueueStats> qs = queues.get(p.number());
            List<GroupStats> gs = groups.get(p.number());
            if (qs != null && gs != null) {
                cocoa.observe(d, p.number(), p.speedMbps(), gs, qs, engine.compiler().initialBuffer(), now);
            }
        }
    }

    // Stats indices per device (params ports.stats_indices): ports beyond get none.
    private int statsIndices() {
        return (int) params.integer("ports", "stats_indices");
    }

    private boolean isMaster(String deviceId) {
        return mastershipService == null || mastershipService.isLocalMaster(DeviceId.deviceId(deviceId));
    }

    /**
     * Topology as the computation sees it: available devices, enabled ports, roles from links.
     *
     * @return the fabric view
     */
    FabricView fabric() {
        FabricView.Builder b = FabricView.builder();
        if (deviceService == null) {
            return b.build();
        }
        Set<ConnectPoint> infra = new HashSet<>();
        if (linkService != null) {
            for (Link l : linkService.getActiveLinks()) {
                infra.add(l.src());
                infra.add(l.dst());
            }
        }
        for (Device dev : deviceService.getAvailableDevices(Device.Type.SWITCH)) {
            String id = dev.id().toString();
            b.device(id);
            List<Port> all = deviceService.getPorts(dev.id());
            // Stats indices from every port of the device, enabled or not: a
            // port going down moves no other port's index (StatsIndex).
            List<Long> numbers = new ArrayList<>();
            for (Port p : all) {
                if (!p.number().isLogical()) {
                    numbers.add(p.number().toLong());
                }
            }
            Map<Long, Integer> fixed = fixedIndices.get(id);
            b.statsIndices(id, fixed != null ? fixed : StatsIndex.assign(numbers, statsIndices()));
            for (Port p : all) {
                if (!p.isEnabled() || p.number().isLogical()) {
                    continue;
                }
                PortRole role = infra.contains(new ConnectPoint(dev.id(), p.number())) ? PortRole.FABRIC
                        : PortRole.EDGE;
                b.port(id, p.number().toLong(), role, p.portSpeed());
            }
        }
        return b.build();
    }

    /**
     * Applies a netcfg: period, then intents (all validated first; nothing applied if any is invalid).
     *
     * @param cfg config, or null
     */
    void applyConfig(CcfairConfig cfg) {
        if (cfg == null) {
            return;
        }
        try {
            List<FairnessIntent> intents = cfg.intents();
            long period = cfg.recomputePeriodMs();
            fixedIndices = cfg.statsIndices();
            schedule(period > 0 ? period : params.integer("controller", "recompute_period_ms"));
            if (store != null) {
                for (FairnessIntent in : intents) {
                    store.put(in);
                }
            }
        } catch (InvalidIntentException e) {
            log.error("ccfair netcfg rejected, nothing applied: {}", e.getMessage());
        }
    }

    private class InternalDeviceListener implements DeviceListener {
        private final Set<DeviceEvent.Type> resync = ImmutableSet.of(
                DeviceEvent.Type.DEVICE_ADDED, DeviceEvent.Type.DEVICE_AVAILABILITY_CHANGED);

        @Override
        public void event(DeviceEvent e) {
            if (resync.contains(e.type()) && engine != null) {
                // Reconnected or new: its tables may be empty or stale, push everything.
                engine.resync(e.subject().id().toString());
            }
            if (e.type() == DeviceEvent.Type.DEVICE_REMOVED && cocoa != null) {
                cocoa.forget(e.subject().id().toString());
            }
            recompute();
        }
    }

    private class InternalMastershipListener implements MastershipListener {
        @Override
        public void event(MastershipEvent e) {
            if (engine != null) {
                engine.resync(e.subject().toString());
            }
            recompute();
        }
    }

    private class InternalWatchdogListener implements PiPipeconfWatchdogListener {
        @Override
        public void event(PiPipeconfWatchdogEvent e) {
            if (e.type() == PiPipeconfWatchdogEvent.Type.PIPELINE_READY && engine != null) {
                // A (re)pushed pipeline starts with empty tables and zeroed counters:
                // Cocoa starts over from the initial limit.
                engine.resync(e.subject().toString());
                if (cocoa != null) {
                    cocoa.forget(e.subject().toString());
                }
                recompute();
            }
        }
    }

    private class InternalNetcfgListener implements NetworkConfigListener {
        @Override
        public boolean isRelevant(NetworkConfigEvent e) {
            return e.configClass().equals(CcfairConfig.class);
        }

        @Override
        public void event(NetworkConfigEvent e) {
            if (e.type() == NetworkConfigEvent.Type.CONFIG_ADDED
                    || e.type() == NetworkConfigEvent.Type.CONFIG_UPDATED) {
                e.config().ifPresent(c -> applyConfig((CcfairConfig) c));
            } else if (e.type() == NetworkConfigEvent.Type.CONFIG_REMOVED) {
                schedule(params.integer("controller", "recompute_period_ms"));
                fixedIndices = Map.of();
            }
        }
    }
}
