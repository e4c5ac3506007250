// SPDX-License-Identifier: Apache-2.0
// Per (egress port, group) statistics for the controller: packets and bytes
// (counted before the AQM, so they include later drops), drops and CE marks.
control Telemetry(in egress_headers_t hdr,
                  in egress_metadata_t md) {
    Counter<bit<64>, pgidx_t>(NUM_PG_INDEX, CounterType_t.PACKETS_AND_BYTES) pg_pkts;
    Counter<bit<32>, pgidx_t>(NUM_PG_INDEX, CounterType_t.PACKETS) pg_drops;
    Counter<bit<32>, pgidx_t>(NUM_PG_INDEX, CounterType_t.PACKETS) pg_marks;
    apply {
        pgidx_t idx = (bit<9>)md.eg_port ++ hdr.bridged.group[4:0];
        if (md.on == 1) {
            pg_pkts.count(idx);
        }
        if (md.on == 1) {
            if (md.drop == 1) {
                pg_drops.count(idx);
            } else if (md.mark == 1) {
                pg_marks.count(idx);
            }
        }
    }
}
