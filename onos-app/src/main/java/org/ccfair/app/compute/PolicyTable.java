/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.compute;

/**
 * Logical tables a device policy is written into, one per controller-written
 * table of docs/dataplane.md ("Tables"). The pipeconf package maps each onto
 * the P4 program's table (names from the generated P4Info constants); keys
 * and values are listed in field order, in the units of the data plane except
 * buffer limits, which stay in packets until the profile's cell size is known.
 */
public enum PolicyTable {
    /** IngressPipe.port_cfg.port_cfg. Key: port. Value: role, default RTT (us). */
    INGRESS_PORT,
    /**
     * EgressPipe.port_cfg.port_cfg. Key: port. Value: role, TVF profile, fair rate bin,
     * ant max packets, mM, slow-start drop (0/1), family forget (0/1: 1 in the isolated
     * layout, D19), stats index.
     */
    EGRESS_PORT,
    /**
     * IngressPipe.eg_port_idx.eg_port_idx. Key: port. Value: stats index (the same as in
     * the port's EGRESS_PORT entry; the ingress counts flows per egress port with it).
     */
    PORT_INDEX,
    /** IngressPipe.queueing.queue_map. Key: port, group, slot. Value: queue id. */
    QUEUE_MAP,
    /** EgressPipe.marker.tvf. Key: profile, group, rate bin. Value: packet value. */
    TVF,
    /**
     * EgressPipe.aqm.aqm_cfg. Key: port, queue. Value: target delay (us, the queue's: D19), buffer limit
     * (packets), ECN (0/1), lowest CTV, highest CTV.
     */
    AQM,
    /** EgressPipe.classifier.rtt_band. Key: RTT low, RTT high (us, inclusive range). Value: band. */
    RTT_BAND
}
