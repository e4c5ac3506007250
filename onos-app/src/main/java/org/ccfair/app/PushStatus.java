/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app;

/**
 * Outcome of the last policy push to a device, as shown by REST and CLI.
 */
public final class PushStatus {

    /** Push state of a device. */
    public enum State {
        /** The device runs the computed policy. */
        IN_SYNC,
        /** Writing failed; a retry is scheduled with backoff. */
        FAILED,
        /** Another ONOS node is master of the device and pushes to it. */
        NOT_MASTER
    }

    private final State state;
    private final int writes;
    private final int attempts;
    private final String lastError;
    private final long nextRetryMs;
    private final long updatedMs;

    /**
     * Creates a status.
     *
     * @param state       current state
     * @param writes      writes of the last attempt
     * @param attempts    consecutive failed attempts
     * @param lastError   message of the last failure, or null
     * @param nextRetryMs time of the next retry (FAILED only), ms
     * @param updatedMs   time of this status, ms
     */
    public PushStatus(State state, int writes, int attempts, String lastError, long nextRetryMs, long updatedMs) {
        this.state = state;
        this.writes = writes;
        this.attempts = attempts;
        this.lastError = lastError;
        this.nextRetryMs = nextRetryMs;
        this.updatedMs = updatedMs;
    }

    /**
     * State.
     *
     * @return state
     */
    public State state() {
        return state;
    }

    /**
     * Writes of the last attempt.
     *
     * @return count
     */
    public int writes() {
        return writes;
    }

    /**
     * Consecutive failed attempts.
     *
     * @return count
     */
    public int attempts() {
        return attempts;
    }

    /**
     * Last failure message.
     *
     * @return message or null
     */
    public String lastError() {
        return lastError;
    }

    /**
     * Time of the next retry.
     *
     * @return ms
     */
    public long nextRetryMs() {
        return nextRetryMs;
    }

    /**
     * Time of this status.
     *
     * @return ms
     */
    public long updatedMs() {
        return updatedMs;
    }
}
