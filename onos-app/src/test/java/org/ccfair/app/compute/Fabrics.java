/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.compute;

/**
 * Small and large fabrics for tests and the benchmark.
 */
public final class Fabrics {

    private Fabrics() {
    }

    /**
     * Leaf-spine fabric: every leaf has one uplink per spine (ports 1..spines)
     * and hosts on the remaining ports; spines have one port per leaf.
     *
     * @param leaves    leaves
     * @param spines    spines
     * @param hostPorts host ports per leaf
     * @return fabric
     */
    public static FabricView leafSpine(int leaves, int spines, int hostPorts) {
        FabricView.Builder b = FabricView.builder();
        for (int l = 1; l <= leaves; l++) {
            for (int s = 1; s <= spines; s++) {
                b.port(leaf(l), s, PortRole.FABRIC, 100_000);
            }
            for (int h = 1; h <= hostPorts; h++) {
                b.port(leaf(l), spines + h, PortRole.EDGE, 25_000);
            }
        }
        for (int s = 1; s <= spines; s++) {
            for (int l = 1; l <= leaves; l++) {
                b.port(spine(s), l, PortRole.FABRIC, 100_000);
            }
        }
        return b.build();
    }

    /**
     * Leaf device id.
     *
     * @param i index
     * @return id
     */
    public static String leaf(int i) {
        return "device:leaf" + i;
    }

    /**
     * Spine device id.
     *
     * @param i index
     * @return id
     */
    public static String spine(int i) {
        return "device:spine" + i;
    }
}
