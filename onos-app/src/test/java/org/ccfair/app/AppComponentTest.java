/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.Test;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreServiceAdapter;
import org.onosproject.core.DefaultApplicationId;
import org.onosproject.net.config.ConfigApplyDelegate;
import org.onosproject.net.config.InvalidFieldException;
import org.onosproject.store.service.TestStorageService;

import java.util.List;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.fail;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

/**
 * Activation against ONOS test adapters, intents through the service, and netcfg.
 */
public class AppComponentTest {

    private AppComponent activate() {
        AppComponent app = new AppComponent();
        app.coreService = new CoreServiceAdapter() {
            @Override
            public ApplicationId registerApplication(String name) {
                return new DefaultApplicationId(7, name);
            }
        };
        app.storageService = new TestStorageService();
        app.activate();
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
    }

    private static void invalid(CcfairConfig c, String text) {
        try {
            c.isValid();
            fail("accepted");
        } catch (InvalidFieldException e) {
            assertTrue(e.getMessage(), e.getMessage().contains(text));
        }
    }
}
