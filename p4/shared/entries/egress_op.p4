// SPDX-License-Identifier: Apache-2.0
// Const entries of `egress_op`: whether egress marks and runs the AQM (on) and which classifier register operation runs.
// Included by p4/tna and p4/v1model alike, so the port cannot drift from the product.
(CPU_PORT, _, _, _, _, _) : set_op(0, CLS_NONE);
(_, 0, true, 0, _, _) : set_op(1, CLS_NONE);
(_, 0, true, 1, 1, _) : set_op(1, CLS_NEW);
(_, 0, true, 1, 0, 1) : set_op(1, CLS_END);
(_, 0, true, 1, 0, 0) : set_op(1, CLS_PKT);
(_, 0, true, 1, 0, INTERVAL_ACK) : set_op(1, CLS_NONE);   // a pure ACK
(_, 0, true, 1, 0, INTERVAL_RESTART) : set_op(1, CLS_NEW);   // the handshake sample: first interval starts
