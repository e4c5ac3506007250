/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app;

import org.slf4j.LoggerFactory;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Where the app's recomputation rounds run. In ONOS: one background thread
 * ({@link #background}). Tests substitute a runner they drive by hand, so a
 * test sees exactly the rounds it asks for and no round races its reads.
 */
public interface RoundRunner {

    /**
     * Runs a round soon (events, REST, bind).
     *
     * @param round the round
     */
    void submit(Runnable round);

    /**
     * Runs a round every ms, replacing the previous periodic round.
     *
     * @param ms     period
     * @param round the round
     */
    void every(long ms, Runnable round);

    /** Stops: no round starts after this returns, and the one in progress has ended. */
    void stop();

    /**
     * The runner ONOS uses: one thread, so rounds never overlap.
     *
     * @param name thread name
     * @param stopTimeoutMs how long stop() waits for a round in progress (a round may wait
     *                      for ONOS to confirm a stage of flow rules)
     * @return the runner
     */
    static RoundRunner background(String name, long stopTimeoutMs) {
        ScheduledExecutorService ex = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, name));
        return new RoundRunner() {
            private ScheduledFuture<?> periodic;

            @Override
            public void submit(Runnable round) {
                ex.execute(round);
            }

            @Override
            public synchronized void every(long ms, Runnable round) {
                if (periodic != null) {
                    periodic.cancel(false);
                }
                periodic = ex.scheduleWithFixedDelay(round, ms, ms, TimeUnit.MILLISECONDS);
            }

            @Override
            public void stop() {
                ex.shutdownNow();
                try {
                    if (!ex.awaitTermination(stopTimeoutMs, TimeUnit.MILLISECONDS)) {
                        LoggerFactory.getLogger(RoundRunner.class)
                                .warn("{}: a round still runs {} ms after stop", name, stopTimeoutMs);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
    }
}
