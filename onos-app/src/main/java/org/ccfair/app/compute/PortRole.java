/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.compute;

/**
 * Role of a switch port in the fabric. Edge ports face hosts: flows are
 * tracked, classified and marked there, and any incoming shim is stripped.
 * Fabric ports face other switches: the shim is trusted.
 */
public enum PortRole {
    /** Host-facing port (not part of any infrastructure link). */
    EDGE,
    /** Switch-facing port (end of an infrastructure link). */
    FABRIC
}
