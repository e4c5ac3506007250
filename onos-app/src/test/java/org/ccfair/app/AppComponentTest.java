/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app;

import org.junit.Test;
import org.onosproject.core.CoreServiceAdapter;
import org.onosproject.core.DefaultApplicationId;
import org.onosproject.core.ApplicationId;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;

/**
 * Activation against ONOS's CoreService test adapter.
 */
public class AppComponentTest {

    @Test
    public void activationRegistersAppAndLoadsParams() {
        AppComponent app = new AppComponent();
        app.coreService = new CoreServiceAdapter() {
            @Override
            public ApplicationId registerApplication(String name) {
                return new DefaultApplicationId(7, name);
            }
        };
        app.activate();
        assertEquals(AppComponent.APP_NAME, app.appId().name());
        assertNotNull(app.params());
        assertEquals(2 + 3 * app.params().k(), app.params().numGroups());
        app.deactivate();
    }
}
