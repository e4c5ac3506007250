# SPDX-License-Identifier: Apache-2.0
"""Packet-value marking at the egress of the ingress edge: PV from the TVF of the flow's
group (egress port's TVF profile), carried in the shim toward fabric ports."""
import time

from ptf.testutils import group

import packets as K
from base_test import CcfairTest, IG


def pv_of_group(g):
    return 1000 + 100 * g  # a constant, distinct PV per group


class _Marking(CcfairTest):
    def shim_of(self, port):
        pkt = self.recv(port, timeout=2.0)
        self.assertIsNotNone(pkt, "nothing left port %d" % port)
        self.assertTrue(pkt.haslayer(K.CcfairShim), "no shim toward fabric port %d: %r" % (port, pkt))
        return pkt[K.CcfairShim]


@group("marking")
class PvFromGroupTvf(_Marking):
    """Each group's TVF decides the PV: ant (UDP) and mouse (new TCP) get their own values."""

    def runTest(self):
        p1, p3 = self.edge_to_fabric()
        for g in (self.group_id("ant"), self.group_id("mouse")):
            self.tvf(g, lambda b, g=g: pv_of_group(g))
        self.send(p1, K.udp(0, 1))
        s = self.shim_of(p3)
        self.assertEqual((s.group, s.pv), (self.group_id("ant"), pv_of_group(self.group_id("ant"))))
        self.send(p1, K.Flow(0, 1, 44001).syn())
        s = self.shim_of(p3)
        self.assertEqual((s.group, s.pv), (self.group_id("mouse"), pv_of_group(self.group_id("mouse"))))


@group("marking")
class TvfProfileOfEgressPort(_Marking):
    """The egress port's tvf_profile selects which TVF table marks its traffic."""

    def runTest(self):
        p1, p3 = self.ports[0], self.ports[2]
        self.edge_port(p1)
        self.insert(IG + ".port_cfg.port_cfg", {"ig_port": p3}, IG + ".port_cfg.set_fabric_port")
        self.egress_cfg(p3, role=self.params["ports"]["role_fabric"], tvf_profile=1)
        self.l2(1, p3)
        ant = self.group_id("ant")
        self.tvf(ant, lambda b: 111, profile=0)
        self.tvf(ant, lambda b: 222, profile=1)
        self.send(p1, K.udp(0, 1))
        self.assertEqual(self.shim_of(p3).pv, 222)


@group("marking")
class NoTvfMeansPvMax(_Marking):
    """Before any TVF is written every packet gets pv_max (AQM inert)."""

    def runTest(self):
        p1, p3 = self.edge_to_fabric()
        self.send(p1, K.udp(0, 1))
        self.assertEqual(self.shim_of(p3).pv, self.params["tvf"]["pv_max"])


@group("marking")
class PvDrawnWithinTvfOfFlowRate(_Marking):
    """PV = TVF(u x rate): a new flow (rate 0) gets TVF(bin 0); a fast flow's PVs all come from
    the TVF's values, and some fall below TVF(bin 0) (the random position reaches its rate)."""

    def runTest(self):
        p1, p3 = self.edge_to_fabric()
        steps = self.params["tvf"]["rate_steps"]
        tvf = {b: 60000 - 300 * b for b in range(steps)}  # non-increasing, as the ONOS app writes them
        for g in range(2, 2 + 3 * self.params["groups"]["k"]):
            self.tvf(g, tvf.get)
        self.tvf(self.group_id("mouse"), tvf.get)
        self.tvf(self.group_id("ant"), tvf.get)
        f = K.Flow(0, 1, 44010)
        self.send(p1, f.data(1000))
        self.assertEqual(self.shim_of(p3).pv, tvf[0], "a flow with no rate yet is not at TVF(0)")
        pvs = []
        for burst in range(4):  # several intervals at full speed: the flow has a rate
            for i in range(30):
                self.send(p1, f.data(1000, seq=1 + 1000 * (30 * burst + i)))
            pvs += [p[K.CcfairShim].pv for p in self.recv_all(p3, 0.3) if p.haslayer(K.CcfairShim)]
            self.sleep_interval()
        outside = sorted(set(pvs) - set(tvf.values()))
        self.assertFalse(outside, "PVs outside the TVF: %s" % outside)
        self.assertTrue(any(pv < tvf[0] for pv in pvs), "every PV was TVF(0): rate not used")

    def sleep_interval(self):
        time.sleep(self.params["flow"]["default_rtt_us"] * 1.2e-6)
