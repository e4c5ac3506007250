// SPDX-License-Identifier: Apache-2.0
// Per-group queues (v1model port of tna/control/queueing.p4). IngressPipe
// maps the queue id onto one of BMv2's strict-priority queues.
control Queueing(inout ingress_metadata_t md,
                 inout ig_tm_md_t ig_tm_md) {
    action set_queue(bit<8> qid) {
        ig_tm_md.qid = qid;
        md.bridged.qid = qid;
    }
    table queue_map {
        key = {
            md.eg_port: exact @name("eg_port");
            md.bridged.group: exact @name("group");
            md.slot: exact @name("slot");
        }
        actions = { set_queue; }
        default_action = set_queue(0);
        size = QUEUE_MAP_SIZE;
    }
    apply { queue_map.apply(); }
}
