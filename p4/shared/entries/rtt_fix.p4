// SPDX-License-Identifier: Apache-2.0
// Const entries of `rtt_fix` (keys rtt_raw, rtt_smp): the RTT an interval uses: the sample this packet
// completes, default, minimum, or the clamped stored sample.
// Included by p4/tna and p4/v1model alike, so the port cannot drift from the product.
(RTT_PENDING &&& RTT_PENDING, 1 &&& 1) : use_sample();      // rtt_sample read a pending SYN time: sample done
(0 &&& 0xffffffff, _) : use_default_rtt();                   // no handshake seen
(RTT_PENDING &&& RTT_PENDING, _) : use_default_rtt();        // SYN seen, no sample yet
(0 &&& 0xffffff80, _) : use_min_rtt();
