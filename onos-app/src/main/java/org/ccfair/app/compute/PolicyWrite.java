/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.compute;

import java.util.Arrays;
import java.util.Objects;

/**
 * One write of a logical table entry, before translation to P4Runtime.
 */
public final class PolicyWrite {

    /** Kind of write. */
    public enum Op {
        /** Entry did not exist. */
        INSERT,
        /** Entry exists; value changes. */
        MODIFY,
        /** Entry exists; remove it. */
        DELETE
    }

    private final Op op;
    private final PolicyTable table;
    private final long[] key;
    private final long[] value;
    private final int batch;

    /**
     * Creates a write.
     *
     * @param op    operation
     * @param table logical table
     * @param key   key fields
     * @param value value fields (empty for DELETE)
     */
    public PolicyWrite(Op op, PolicyTable table, long[] key, long[] value) {
        this(op, table, key, value, 0);
    }

    private PolicyWrite(Op op, PolicyTable table, long[] key, long[] value, int batch) {
        this.op = op;
        this.table = table;
        this.key = key;
        this.value = value;
        this.batch = batch;
    }

    /**
     * The same write in a given batch.
     *
     * @param b batch index
     * @return a copy with that batch
     */
    public PolicyWrite inBatch(int b) {
        return new PolicyWrite(op, table, key, value, b);
    }

    /**
     * Batch of the write: writes of one batch are independent; batches are applied in order.
     *
     * @return batch index
     */
    public int batch() {
        return batch;
    }

    /**
     * Operation.
     *
     * @return op
     */
    public Op op() {
        return op;
    }

    /**
     * Logical table.
     *
     * @return table
     */
    public PolicyTable table() {
        return table;
    }

    /**
     * Key field i.
     *
     * @param i index
     * @return value
     */
    public long key(int i) {
        return key[i];
    }

    /**
     * Key fields (copy).
     *
     * @return key
     */
    public long[] key() {
        return key.clone();
    }

    /**
     * Value field i.
     *
     * @param i index
     * @return value
     */
    public long value(int i) {
        return value[i];
    }

    /**
     * Value fields (copy).
     *
     * @return value
     */
    public long[] value() {
        return value.clone();
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof PolicyWrite)) {
            return false;
        }
        PolicyWrite w = (PolicyWrite) o;
        return op == w.op && table == w.table && Arrays.equals(key, w.key) && Arrays.equals(value, w.value);
    }

    @Override
    public int hashCode() {
        return Objects.hash(op, table, Arrays.hashCode(key), Arrays.hashCode(value));
    }

    @Override
    public String toString() {
        return op + " " + table + Arrays.toString(key) + (op == Op.DELETE ? "" : " -> " + Arrays.toString(value));
    }
}
