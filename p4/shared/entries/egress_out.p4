// SPDX-License-Identifier: Apache-2.0
// Const entries of `egress_out`: the egress verdict: drop, CE mark, shim pop at an edge port.
// Included by p4/tna and p4/v1model alike, so the port cannot drift from the product.
(1, 1, _, _) : out_drop();
(1, _, 1, ROLE_EDGE) : out_mark_pop();
(1, _, 1, _) : out_mark();
(1, _, 0, ROLE_EDGE) : out_pop();
