/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.rest;

import org.onlab.rest.AbstractWebApplication;

import java.util.Set;

/**
 * JAX-RS application of the ccfair REST API (web context /onos/ccfair/v1).
 */
public class CcfairWebApplication extends AbstractWebApplication {
    @Override
    public Set<Class<?>> getClasses() {
        return getClasses(CcfairWebResource.class);
    }
}
