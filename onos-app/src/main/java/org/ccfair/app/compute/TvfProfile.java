/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.compute;

import java.util.Arrays;

/**
 * One TVF per group: what edge ports of one intent mark packets with.
 * Compared by content; the compiler interns profiles, so equal profiles are
 * usually the same object and comparisons are cheap.
 */
public final class TvfProfile {

    private final int[][] pv;
    private final int hash;

    /**
     * Creates a profile.
     *
     * @param pv packet value per [group][rate bin] (not copied; callers hand over ownership)
     */
    public TvfProfile(int[][] pv) {
        this.pv = pv;
        this.hash = Arrays.deepHashCode(pv);
    }

    /**
     * Packet value of a group at a rate bin.
     *
     * @param group group id
     * @param bin   rate bin
     * @return packet value
     */
    public int pv(int group, int bin) {
        return pv[group][bin];
    }

    /**
     * Number of groups.
     *
     * @return groups
     */
    public int groups() {
        return pv.length;
    }

    /**
     * Number of rate bins.
     *
     * @return bins
     */
    public int bins() {
        return pv[0].length;
    }

    /**
     * Copy of one group's curve.
     *
     * @param group group id
     * @return packet values per bin
     */
    public int[] curve(int group) {
        return pv[group].clone();
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        return o instanceof TvfProfile && hash == ((TvfProfile) o).hash && Arrays.deepEquals(pv, ((TvfProfile) o).pv);
    }

    @Override
    public int hashCode() {
        return hash;
    }
}
