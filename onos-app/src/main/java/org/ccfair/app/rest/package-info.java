/*
 * SPDX-License-Identifier: Apache-2.0
 */

/**
 * REST API under /onos/ccfair/v1 and its JSON codecs.
 */
package org.ccfair.app.rest;
