/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.policy;

import com.google.common.collect.ImmutableList;
import org.onlab.util.KryoNamespace;
import org.onosproject.store.service.ConsistentMap;
import org.onosproject.store.service.MapEventListener;
import org.onosproject.store.service.Serializer;
import org.onosproject.store.service.StorageService;
import org.onosproject.store.service.Versioned;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Fairness intents in ONOS's distributed store, so every cluster node sees
 * the same intents. Values are the intent's JSON text, not Kryo-serialized
 * objects: the store then needs no class registration and survives an app
 * upgrade that adds optional fields (or removes one: reads go through
 * {@link IntentJson#fromStored(String)}). Every write is validated first, so an
 * invalid intent never reaches the store.
 */
public final class IntentStore {

    /** Name of the ConsistentMap. */
    public static final String MAP_NAME = "ccfair-fairness-intents";

    private final ConsistentMap<String, String> map;
    private final IntentJson json;

    /**
     * Opens (or creates) the intent map.
     *
     * @param storage ONOS storage service
     * @param json    intent codec (validates)
     */
    public IntentStore(StorageService storage, IntentJson json) {
        this.json = json;
        this.map = storage.<String, String>consistentMapBuilder()
                .withName(MAP_NAME)
                .withSerializer(Serializer.using(KryoNamespace.newBuilder().register(String.class).build(MAP_NAME)))
                .build();
    }

    /**
     * Adds a new intent.
     *
     * @param intent intent
     * @return true if added, false if an intent with that id exists
     * @throws InvalidIntentException if the intent is invalid (nothing stored)
     */
    public boolean create(FairnessIntent intent) {
        String text = json.toText(json.decode(json.encode(intent)));
        return map.putIfAbsent(intent.id(), text) == null;
    }

    /**
     * Adds or replaces an intent.
     *
     * @param intent intent
     * @return the previous intent with that id, if any
     * @throws InvalidIntentException if the intent is invalid (nothing stored)
     */
    public Optional<FairnessIntent> put(FairnessIntent intent) {
        String text = json.toText(json.decode(json.encode(intent)));
        Versioned<String> old = map.put(intent.id(), text);
        return old == null ? Optional.empty() : Optional.of(json.fromStored(old.value()));
    }

    /**
     * Removes an intent.
     *
     * @param id intent id
     * @return the removed intent, if it existed
     */
    public Optional<FairnessIntent> remove(String id) {
        Versioned<String> old = map.remove(id);
        return old == null ? Optional.empty() : Optional.of(json.fromStored(old.value()));
    }

    /**
     * One intent.
     *
     * @param id intent id
     * @return the intent, if present
     */
    public Optional<FairnessIntent> get(String id) {
        Versioned<String> v = map.get(id);
        return v == null ? Optional.empty() : Optional.of(json.fromStored(v.value()));
    }

    /**
     * Every intent, sorted by id.
     *
     * @return intents
     */
    public List<FairnessIntent> all() {
        return map.values().stream().map(v -> json.fromStored(v.value()))
                .sorted(Comparator.comparing(FairnessIntent::id))
                .collect(ImmutableList.toImmutableList());
    }

    /**
     * Subscribes to changes made by any cluster node.
     *
     * @param l listener
     */
    public void addListener(MapEventListener<String, String> l) {
        map.addListener(l);
    }

    /**
     * Unsubscribes.
     *
     * @param l listener
     */
    public void removeListener(MapEventListener<String, String> l) {
        map.removeListener(l);
    }
}
