/*
 * SPDX-License-Identifier: Apache-2.0
 */

/**
 * Live per-(port, group) statistics read from the switches.
 */
package org.ccfair.app.stats;
