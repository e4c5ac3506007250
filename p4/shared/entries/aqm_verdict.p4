// SPDX-License-Identifier: Apache-2.0
// Const entries of `aqm_verdict`: the AQM verdict: pass, PV drop, CE mark or limit drop (first match wins).
// Included by p4/tna and p4/v1model alike, so the port cannot drift from the product.
// Keys: depth_over, pv_below, IPv4 valid, ecn, ecn_en, gate_over, bridged retx, bridged group.
// The group differs from GROUP_MODEL first at bit b (from the top): bits 7..0 cover every other group.
#define CCFAIR_NOT_MODEL(b, m) ((GROUP_MODEL ^ b) & m) &&& m   // bit b flipped, bits above it kept (mask m)
(0, 0, _, _, _, _, _, _) : pass();                // under the limit, PV >= CTV
(0, _, _, _, _, 0, _, _) : pass();                // PV < CTV, no standing queue (sojourn << pv_gate_shift <= target)
// PV < CTV, a retransmission: neither dropped nor marked, as a dropped one costs a loss-based flow a
// timeout; except a model-based flow's, which ignores loss and would only get through.
(0, _, _, _, _, _, 1, CCFAIR_NOT_MODEL(8w0x80, 8w0x80)) : pass();
(0, _, _, _, _, _, 1, CCFAIR_NOT_MODEL(8w0x40, 8w0xC0)) : pass();
(0, _, _, _, _, _, 1, CCFAIR_NOT_MODEL(8w0x20, 8w0xE0)) : pass();
(0, _, _, _, _, _, 1, CCFAIR_NOT_MODEL(8w0x10, 8w0xF0)) : pass();
(0, _, _, _, _, _, 1, CCFAIR_NOT_MODEL(8w0x08, 8w0xF8)) : pass();
(0, _, _, _, _, _, 1, CCFAIR_NOT_MODEL(8w0x04, 8w0xFC)) : pass();
(0, _, _, _, _, _, 1, CCFAIR_NOT_MODEL(8w0x02, 8w0xFE)) : pass();
(0, _, _, _, _, _, 1, CCFAIR_NOT_MODEL(8w0x01, 8w0xFF)) : pass();
(0, _, false, _, _, _, _, _) : pv_drop();         // PV < CTV, not IPv4
(0, _, true, 0, _, _, _, _) : pv_drop();          // PV < CTV, not ECN-capable
(0, _, true, _, 0, _, _, _) : pv_drop();          // PV < CTV, ECN off for the queue
(0, _, true, _, _, _, _, _) : pv_mark();          // PV < CTV, ECT: CE instead
(_, _, _, _, _, _, _, _) : limit_drop();          // over the buffer limit
#undef CCFAIR_NOT_MODEL
