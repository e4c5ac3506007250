// SPDX-License-Identifier: Apache-2.0
// Const entries of `aqm_verdict`: the AQM verdict: pass, PV drop, CE mark or limit drop (first match wins).
// Included by p4/tna and p4/v1model alike, so the port cannot drift from the product.
(0, 0, _, _, _, _) : pass();                // under the limit, PV >= CTV
(0, _, _, _, _, 0) : pass();                // PV < CTV, no standing queue (sojourn << pv_gate_shift <= target)
(0, _, false, _, _, _) : pv_drop();         // PV < CTV, not IPv4
(0, _, true, 0, _, _) : pv_drop();          // PV < CTV, not ECN-capable
(0, _, true, _, 0, _) : pv_drop();          // PV < CTV, ECN off for the queue
(0, _, true, _, _, _) : pv_mark();          // PV < CTV, ECT: CE instead
(_, _, _, _, _, _) : limit_drop();          // over the buffer limit
