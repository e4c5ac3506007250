// SPDX-License-Identifier: Apache-2.0
// Const entries of `rtt_fix`: the RTT an interval uses: default, minimum, or the clamped sample.
// Included by p4/tna and p4/v1model alike, so the port cannot drift from the product.
0 &&& 0xffffffff : use_default_rtt();   // no handshake seen
RTT_PENDING &&& RTT_PENDING : use_default_rtt();  // SYN seen, no sample yet
0 &&& 0xffffff80 : use_min_rtt();
