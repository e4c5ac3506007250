// SPDX-License-Identifier: Apache-2.0
// Per-group queues: (egress port, group, slot) -> queue id, written by the
// controller (it deals each group's slots over the queues it gives the group).
control Queueing(inout ingress_metadata_t md,
                 inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    action set_queue(bit<8> qid) {
        ig_tm_md.qid = (QueueId_t)qid;
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
