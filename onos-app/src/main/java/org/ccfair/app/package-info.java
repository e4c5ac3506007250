/*
 * SPDX-License-Identifier: Apache-2.0
 */

/**
 * ccfair ONOS application: lifecycle and shared parameters.
 */
package org.ccfair.app;
