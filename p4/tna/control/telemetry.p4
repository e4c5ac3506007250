// SPDX-License-Identifier: Apache-2.0
// Per (egress port, group) statistics for the controller: packets and bytes
// (counted before the AQM, so they include later drops), drops and CE marks.
control Telemetry(in egress_headers_t hdr,
                  inout egress_metadata_t md) {
    Counter<bit<64>, pgidx_t>(NUM_PG_INDEX, CounterType_t.PACKETS_AND_BYTES) pg_pkts;
    Counter<bit<32>, pgidx_t>(NUM_PG_INDEX, CounterType_t.PACKETS) pg_drops;
    Counter<bit<32>, pgidx_t>(NUM_PG_INDEX, CounterType_t.PACKETS) pg_marks;

    @hidden action count_drop() { pg_drops.count(md.pg_idx); }
    @hidden action count_mark() { pg_marks.count(md.pg_idx); }
    // Drops as EgressPipe.egress_out decides them (md.drop: AQM, buffer limit,
    // slow-start drop). One table per counter (a table's actions must address
    // every indirect counter alike).
    @hidden
    table drop_count {
        key = {
            md.on: exact;
            md.drop: exact;
        }
        actions = { count_drop; no_op; }
        const entries = {
            (1, 1) : count_drop();
        }
        const default_action = no_op();
        size = 1;
    }
    @hidden
    table mark_count {
        key = {
            md.on: exact;
            md.drop: exact;
            md.mark: exact;
        }
        actions = { count_mark; no_op; }
        const entries = {
            (1, 0, 1) : count_mark();
        }
        const default_action = no_op();
        size = 1;
    }

    apply {
        md.pg_idx = md.stats_idx ++ hdr.bridged.group[4:0];
        if (md.on == 1) {
            pg_pkts.count(md.pg_idx);
        }
        drop_count.apply();
        mark_count.apply();
    }
}
