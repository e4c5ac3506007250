// SPDX-License-Identifier: Apache-2.0
// Const entries of `rtt_fix` (keys rtt_raw, rtt_smp): the RTT an interval uses: the sample this packet
// completes, default, minimum, the stored sample (clamped) or, from 2^20 units (1.07 s) on, the maximum
// (default action use_max_rtt; algorithm.md defect 9).
// Included by p4/tna and p4/v1model alike, so the port cannot drift from the product.
(RTT_PENDING &&& RTT_PENDING, 1 &&& 1) : use_sample();      // rtt_sample read a pending SYN time: sample done
(0 &&& 0xffffffff, _) : use_default_rtt();                   // no handshake seen
(RTT_PENDING &&& RTT_PENDING, _) : use_default_rtt();        // SYN seen, no sample yet
(0 &&& 0xffffff80, _) : use_min_rtt();
(0 &&& 0xfff00000, _) : clamp_rtt();                        // below 2^20 units; above: use_max_rtt
