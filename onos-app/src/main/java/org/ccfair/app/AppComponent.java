/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app;

import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreService;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Application lifecycle: registers the ccfair application id and loads the
 * shared parameters once, so a broken parameter bundle fails activation
 * instead of surfacing later as a bad table write.
 */
@Component(immediate = true, service = AppComponent.class)
public class AppComponent {

    /** ONOS application name, as in the .oar's app.xml. */
    public static final String APP_NAME = "org.ccfair.app";

    private final Logger log = LoggerFactory.getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected CoreService coreService;

    private ApplicationId appId;
    private CcfairParams params;

    @Activate
    protected void activate() {
        appId = coreService.registerApplication(APP_NAME);
        params = CcfairParams.load();
        log.info("Started {} with {} groups (K={})", appId.name(), params.numGroups(), params.k());
    }

    @Deactivate
    protected void deactivate() {
        log.info("Stopped");
    }

    /**
     * Application id registered at activation.
     *
     * @return the id, or null before activation
     */
    public ApplicationId appId() {
        return appId;
    }

    /**
     * Parameters loaded at activation.
     *
     * @return the parameters, or null before activation
     */
    public CcfairParams params() {
        return params;
    }
}
