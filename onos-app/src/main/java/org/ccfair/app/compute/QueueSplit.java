/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.compute;

import org.ccfair.app.policy.FairnessIntent.QueueLayout;

import java.util.Arrays;

/**
 * How one port's queues are split among the groups: per group, how many
 * queues it has and the first of them; a group's queues are consecutive
 * (modulo the port's queue count) and its queue-map slots are dealt over them
 * round-robin. In the {@link QueueLayout#SHARED shared} layout every
 * long-lived group has the same single queue; in the
 * {@link QueueLayout#ISOLATED isolated} layout each long-lived group has a
 * queue of its own, chosen by its DWRR weight (PolicyCompiler, D18), or groups
 * are laid out one after the other in group-id order.
 */
public final class QueueSplit {

    private final QueueLayout layout;
    private final int[] queues;
    private final int[] first;

    private QueueSplit(QueueLayout layout, int[] queues, int[] first) {
        this.layout = layout;
        this.queues = queues;
        this.first = first;
    }

    /**
     * Groups one after the other in group-id order, each with its own queues.
     *
     * @param queues queues per group (owned by the result)
     * @return the split
     */
    public static QueueSplit isolated(int[] queues) {
        int[] first = new int[queues.length];
        int base = 0;
        for (int g = 0; g < queues.length; g++) {
            first[g] = base;
            base += queues[g];
        }
        return new QueueSplit(QueueLayout.ISOLATED, queues, first);
    }

    /**
     * Groups on given queues (the isolated layout by DWRR weight, D18).
     *
     * @param queues queues per group (owned by the result)
     * @param first  first queue of each group (owned by the result)
     * @return the split
     */
    public static QueueSplit isolated(int[] queues, int[] first) {
        return new QueueSplit(QueueLayout.ISOLATED, queues, first);
    }

    /**
     * Groups in group-id order, except that every long-lived group uses one
     * common queue, placed where the first long-lived group would start.
     *
     * @param queues    queues per group (owned by the result); 1 for long-lived groups
     * @param longLived per group, whether it is long-lived
     * @return the split
     */
    public static QueueSplit shared(int[] queues, boolean[] longLived) {
        int[] first = new int[queues.length];
        int base = 0;
        int common = -1;
        for (int g = 0; g < queues.length; g++) {
            if (longLived[g]) {
                if (common < 0) {
                    common = base;
                    base++;
                }
                first[g] = common;
            } else {
                first[g] = base;
                base += queues[g];
            }
        }
        return new QueueSplit(QueueLayout.SHARED, queues, first);
    }

    /**
     * Layout the split follows.
     *
     * @return layout
     */
    public QueueLayout layout() {
        return layout;
    }

    /**
     * Number of groups.
     *
     * @return groups
     */
    public int groups() {
        return queues.length;
    }

    /**
     * Queues a group uses (in the shared layout 1 for every long-lived group: the common one).
     *
     * @param group group id
     * @return queues, at least 1
     */
    public int queues(int group) {
        return queues[group];
    }

    /**
     * First queue of a group (before wrapping at the port's queue count).
     *
     * @param group group id
     * @return queue index
     */
    public int first(int group) {
        return first[group];
    }

    /**
     * Queue of a group's slot: its queues dealt round-robin over the slots;
     * ids wrap when the port has fewer queues than the split needs.
     *
     * @param group     group id
     * @param slot      queue-map slot
     * @param numQueues queues of the port
     * @return queue id
     */
    public int queueOf(int group, int slot, int numQueues) {
        return (first[group] + slot % queues[group]) % numQueues;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof QueueSplit)) {
            return false;
        }
        QueueSplit s = (QueueSplit) o;
        return layout == s.layout && Arrays.equals(queues, s.queues) && Arrays.equals(first, s.first);
    }

    @Override
    public int hashCode() {
        return (layout.ordinal() * 31 + Arrays.hashCode(queues)) * 31 + Arrays.hashCode(first);
    }

    @Override
    public String toString() {
        return layout.text() + Arrays.toString(queues) + "@" + Arrays.toString(first);
    }
}
