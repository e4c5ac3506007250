/*
 * SPDX-License-Identifier: Apache-2.0
 */

/**
 * Karaf CLI commands and completers.
 */
package org.ccfair.app.cli;
