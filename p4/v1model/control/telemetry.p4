// SPDX-License-Identifier: Apache-2.0
// Per (egress port, group) statistics (v1model port of
// tna/control/telemetry.p4): packets and bytes before the AQM, drops, marks.
control Telemetry(in headers_t hdr,
                  inout egress_metadata_t md) {
    counter<bit<32>>(NUM_PG_INDEX, CounterType.packets_and_bytes) pg_pkts;
    counter<bit<32>>(NUM_PG_INDEX, CounterType.packets) pg_drops;
    counter<bit<32>>(NUM_PG_INDEX, CounterType.packets) pg_marks;

    apply {
        md.pg_idx = md.stats_idx ++ hdr.bridged.group[4:0];
        if (md.on == 1) {
            pg_pkts.count((bit<32>)md.pg_idx);
            // Drops as EgressPipe.egress_out decides them.
            if (md.drop == 1) {
                pg_drops.count((bit<32>)md.pg_idx);
            } else if (md.mark == 1) {
                pg_marks.count((bit<32>)md.pg_idx);
            }
        }
    }
}
