/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app;

import java.util.ArrayList;
import java.util.List;

/**
 * A RoundRunner the test drives: submitted rounds wait in a list, the periodic round never
 * fires, so the test sees exactly the rounds it runs (recomputeNow or runSubmitted).
 */
final class ManualRounds implements RoundRunner {
    final List<Runnable> submitted = new ArrayList<>();
    long periodMs;
    boolean stopped;

    @Override
    public synchronized void submit(Runnable round) {
        submitted.add(round);
    }

    @Override
    public synchronized void every(long ms, Runnable round) {
        periodMs = ms;
    }

    @Override
    public synchronized void stop() {
        stopped = true;
        submitted.clear();
    }

    /** Runs the rounds submitted so far, on the caller's thread; returns how many. */
    int runSubmitted() {
        List<Runnable> now;
        synchronized (this) {
            now = new ArrayList<>(submitted);
            submitted.clear();
        }
        now.forEach(Runnable::run);
        return now.size();
    }
}
