// SPDX-License-Identifier: Apache-2.0
// Const entries of `pure_ack`: a pure ACK: ACK only, no payload, (data offset, IPv4 total length).
// Included by p4/tna and p4/v1model alike, so the port cannot drift from the product.
(5, 40) : set_pure_ack(); (6, 44) : set_pure_ack(); (7, 48) : set_pure_ack();
(8, 52) : set_pure_ack(); (9, 56) : set_pure_ack(); (10, 60) : set_pure_ack();
(11, 64) : set_pure_ack(); (12, 68) : set_pure_ack(); (13, 72) : set_pure_ack();
(14, 76) : set_pure_ack(); (15, 80) : set_pure_ack();
