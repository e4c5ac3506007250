/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.policy;

import org.ccfair.app.CcfairParams;
import org.junit.Before;
import org.junit.Test;
import org.onosproject.store.service.TestStorageService;

import java.util.ArrayList;
import java.util.List;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/**
 * Intent store on ONOS's test storage service.
 */
public class IntentStoreTest {

    private static final CcfairParams P = CcfairParams.load();
    private IntentStore store;
    private final List<String> events = new ArrayList<>();

    @Before
    public void setUp() {
        store = new IntentStore(new TestStorageService(), new IntentJson(P));
        store.addListener(e -> events.add(e.type() + " " + e.key()));
    }

    @Test
    public void crud() {
        FairnessIntent a = FairnessIntent.builder(P).id("a").priority(5).build();
        assertTrue(store.create(a));
        assertFalse("duplicate id accepted", store.create(a.toBuilder(P).priority(6).build()));
        assertEquals(5, store.get("a").get().priority());
        assertEquals(a, store.put(a.toBuilder(P).priority(7).build()).get());
        assertEquals(7, store.get("a").get().priority());
        store.create(FairnessIntent.builder(P).id("0first").build());
        assertEquals("0first", store.all().get(0).id());
        assertEquals(7, store.remove("a").get().priority());
        assertFalse(store.get("a").isPresent());
        assertEquals(List.of("INSERT a", "UPDATE a", "INSERT 0first", "REMOVE a"), events);
        assertFalse(store.remove("a").isPresent());
        assertEquals(1, store.all().size());
    }

    @Test
    public void invalidIntentIsNotStored() {
        FairnessIntent bad = FairnessIntent.builder(P).id("bad").targetDelayUs(1).build();
        try {
            store.create(bad);
            fail("stored an invalid intent");
        } catch (InvalidIntentException e) {
            assertEquals(List.of("target_delay_us: 1 outside [50, 1000000]"), e.errors());
        }
        try {
            store.put(bad);
            fail("stored an invalid intent");
        } catch (InvalidIntentException e) {
            assertTrue(e.getMessage().contains("target_delay_us"));
        }
        assertTrue(store.all().isEmpty());
        assertTrue(events.isEmpty());
    }
}
