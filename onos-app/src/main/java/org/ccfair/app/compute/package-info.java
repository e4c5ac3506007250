/*
 * SPDX-License-Identifier: Apache-2.0
 */

/**
 * Fabric-wide policy computation: port roles, group to queue maps, throughput-value functions, AQM and
 * buffer parameters, and the ordered difference between two policies.
 */
package org.ccfair.app.compute;
