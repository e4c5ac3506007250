/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.policy;

import com.google.common.collect.ImmutableSortedMap;
import org.ccfair.app.CcfairParams;

import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;

/**
 * An operator's statement of what fairness means on part of the fabric.
 * Immutable; build with {@link #builder(CcfairParams)}, which starts from the
 * defaults of params/ccfair.json, and check with {@link IntentValidator}.
 */
public final class FairnessIntent {

    /** What "fair" means for the long-lived flows of the scope. */
    public enum Objective {
        /** Every long-lived flow gets an equal share whatever its CC. */
        PER_FLOW("per-flow"),
        /** Each CC family gets shares in proportion to its weight. */
        WEIGHTED_GROUPS("weighted-groups");

        private final String text;

        Objective(String text) {
            this.text = text;
        }

        /**
         * External (JSON/CLI) name.
         *
         * @return name
         */
        public String text() {
            return text;
        }

        /**
         * Parses an external name.
         *
         * @param s name
         * @return the objective, or null if unknown
         */
        public static Objective fromText(String s) {
            for (Objective o : values()) {
                if (o.text.equals(s)) {
                    return o;
                }
            }
            return null;
        }
    }

    /** How queue buffer limits are set. */
    public enum BufferPolicy {
        /** Cocoa's adaptive limits, starting from cocoa.initial_limit_pkts. */
        ADAPTIVE("adaptive"),
        /** A fixed limit per queue. */
        FIXED("fixed");

        private final String text;

        BufferPolicy(String text) {
            this.text = text;
        }

        /**
         * External (JSON/CLI) name.
         *
         * @return name
         */
        public String text() {
            return text;
        }

        /**
         * Parses an external name.
         *
         * @param s name
         * @return the policy, or null if unknown
         */
        public static BufferPolicy fromText(String s) {
            for (BufferPolicy b : values()) {
                if (b.text.equals(s)) {
                    return b;
                }
            }
            return null;
        }
    }

    /**
     * How a port's queues are split among the groups. DWRR gives every
     * backlogged queue the same share, so a flow's share is its queue's share
     * divided by the flows in that queue.
     */
    public enum QueueLayout {
        /**
         * Every long-lived group in one queue per port (ants and mice keep
         * theirs): the PV AQM then divides that queue's share among all
         * long-lived flows, whatever their group.
         */
        SHARED("shared"),
        /**
         * Each long-lived group in a queue of its own, the one whose DWRR
         * weight (fixed by the TM at boot: the app cannot set weights) follows
         * the group's active flows x weight (docs/algorithm.md D18).
         */
        ISOLATED("isolated");

        private final String text;

        QueueLayout(String text) {
            this.text = text;
        }

        /**
         * External (JSON/CLI/params) name.
         *
         * @return name
         */
        public String text() {
            return text;
        }

        /**
         * Parses an external name.
         *
         * @param s name
         * @return the layout, or null if unknown
         */
        public static QueueLayout fromText(String s) {
            for (QueueLayout l : values()) {
                if (l.text.equals(s)) {
                    return l;
                }
            }
            return null;
        }
    }

    private final String id;
    private final Scope scope;
    private final Objective objective;
    private final SortedMap<String, Double> weights;
    private final double minAntShare;
    private final double minMiceShare;
    private final long targetDelayUs;
    private final BufferPolicy bufferPolicy;
    private final int bufferLimitPkts;
    private final int priority;
    private final QueueLayout queueLayout;
    private final int mM;

    private FairnessIntent(Builder b) {
        this.id = b.id;
        this.scope = b.scope;
        this.objective = b.objective;
        this.weights = ImmutableSortedMap.copyOf(b.weights);
        this.minAntShare = b.minAntShare;
        this.minMiceShare = b.minMiceShare;
        this.targetDelayUs = b.targetDelayUs;
        this.bufferPolicy = b.bufferPolicy;
        this.bufferLimitPkts = b.bufferLimitPkts;
        this.priority = b.priority;
        this.queueLayout = b.queueLayout;
        this.mM = b.mM;
    }

    /**
     * A builder preset with the defaults of params/ccfair.json.
     *
     * @param params shared parameters
     * @return builder
     */
    public static Builder builder(CcfairParams params) {
        return new Builder(params);
    }

    /**
     * A builder preset with this intent's values.
     *
     * @param params shared parameters
     * @return builder
     */
    public Builder toBuilder(CcfairParams params) {
        Builder b = new Builder(params);
        b.id = id;
        b.scope = scope;
        b.objective = objective;
        b.weights = weights;
        b.minAntShare = minAntShare;
        b.minMiceShare = minMiceShare;
        b.targetDelayUs = targetDelayUs;
        b.bufferPolicy = bufferPolicy;
        b.bufferLimitPkts = bufferLimitPkts;
        b.priority = priority;
        b.queueLayout = queueLayout;
        b.mM = mM;
        return b;
    }

    /**
     * Intent id, unique in the store.
     *
     * @return id
     */
    public String id() {
        return id;
    }

    /**
     * Where the intent applies.
     *
     * @return scope
     */
    public Scope scope() {
        return scope;
    }

    /**
     * Fairness objective.
     *
     * @return objective
     */
    public Objective objective() {
        return objective;
    }

    /**
     * Family weights (weighted-groups only; empty otherwise).
     *
     * @return family name to weight
     */
    public SortedMap<String, Double> weights() {
        return weights;
    }

    /**
     * Weight of a family, 1 when not listed.
     *
     * @param family family name
     * @return weight
     */
    public double weight(String family) {
        Double w = weights.get(family);
        return w == null ? 1.0 : w;
    }

    /**
     * Minimum share of each port's queues guaranteed to ants.
     *
     * @return fraction in [0, 1)
     */
    public double minAntShare() {
        return minAntShare;
    }

    /**
     * Minimum share of each port's queues guaranteed to mice.
     *
     * @return fraction in [0, 1)
     */
    public double minMiceShare() {
        return minMiceShare;
    }

    /**
     * AQM target queuing delay.
     *
     * @return microseconds
     */
    public long targetDelayUs() {
        return targetDelayUs;
    }

    /**
     * Buffer policy.
     *
     * @return policy
     */
    public BufferPolicy bufferPolicy() {
        return bufferPolicy;
    }

    /**
     * Fixed buffer limit per queue (FIXED only, 0 otherwise).
     *
     * @return packets
     */
    public int bufferLimitPkts() {
        return bufferLimitPkts;
    }

    /**
     * Priority among overlapping scopes; the highest wins on a port.
     *
     * @return priority
     */
    public int priority() {
        return priority;
    }

    /**
     * Queue layout of the ports the intent governs.
     *
     * @return layout
     */
    public QueueLayout queueLayout() {
        return queueLayout;
    }

    /**
     * The loss-ignoring count at which a flow becomes model-based (P4air's mM; each loss-ignoring
     * interval adds classifier.ignore_up, each back-off or interval without a retransmission takes
     * one off: docs/algorithm.md D10, D15).
     *
     * @return threshold
     */
    public int mM() {
        return mM;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof FairnessIntent)) {
            return false;
        }
        FairnessIntent f = (FairnessIntent) o;
        return id.equals(f.id) && scope.equals(f.scope) && objective == f.objective
                && weights.equals(f.weights) && minAntShare == f.minAntShare
                && minMiceShare == f.minMiceShare && targetDelayUs == f.targetDelayUs
                && bufferPolicy == f.bufferPolicy && bufferLimitPkts == f.bufferLimitPkts
                && priority == f.priority && queueLayout == f.queueLayout && mM == f.mM;
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, scope, objective, weights, minAntShare, minMiceShare, targetDelayUs,
                            bufferPolicy, bufferLimitPkts, priority, queueLayout, mM);
    }

    @Override
    public String toString() {
        return "FairnessIntent{" + id + ", " + scope + ", " + objective.text()
                + (weights.isEmpty() ? "" : ", weights=" + weights) + ", prio=" + priority + "}";
    }

    /** Builder; unset fields keep the params/ccfair.json defaults. */
    public static final class Builder {
        private String id;
        private Scope scope = Scope.fabric();
        private Objective objective = Objective.PER_FLOW;
        private Map<String, Double> weights = ImmutableSortedMap.of();
        private double minAntShare;
        private double minMiceShare;
        private long targetDelayUs;
        private BufferPolicy bufferPolicy = BufferPolicy.ADAPTIVE;
        private int bufferLimitPkts;
        private int priority;
        private QueueLayout queueLayout;
        private int mM;

        private Builder(CcfairParams p) {
            targetDelayUs = p.integer("aqm", "target_delay_us");
            mM = (int) p.integer("classifier", "m_m");
            minAntShare = p.real("policy", "default_min_ant_share");
            minMiceShare = p.real("policy", "default_min_mice_share");
            priority = (int) p.integer("policy", "default_priority");
            String layout = p.text("queues", "layout");
            queueLayout = QueueLayout.fromText(layout);
            if (queueLayout == null) {
                throw new IllegalArgumentException("queues.layout: '" + layout
                                                           + "' is not 'shared' or 'isolated'");
            }
        }

        /**
         * Sets the id.
         *
         * @param v id
         * @return this
         */
        public Builder id(String v) {
            id = v;
            return this;
        }

        /**
         * Sets the scope.
         *
         * @param v scope
         * @return this
         */
        public Builder scope(Scope v) {
            scope = v;
            return this;
        }

        /**
         * Sets the objective.
         *
         * @param v objective
         * @return this
         */
        public Builder objective(Objective v) {
            objective = v;
            return this;
        }

        /**
         * Sets the family weights.
         *
         * @param v family to weight
         * @return this
         */
        public Builder weights(Map<String, Double> v) {
            weights = v;
            return this;
        }

        /**
         * Sets the ants' minimum queue share.
         *
         * @param v fraction
         * @return this
         */
        public Builder minAntShare(double v) {
            minAntShare = v;
            return this;
        }

        /**
         * Sets the mice's minimum queue share.
         *
         * @param v fraction
         * @return this
         */
        public Builder minMiceShare(double v) {
            minMiceShare = v;
            return this;
        }

        /**
         * Sets the AQM target delay.
         *
         * @param v microseconds
         * @return this
         */
        public Builder targetDelayUs(long v) {
            targetDelayUs = v;
            return this;
        }

        /**
         * Sets the buffer policy.
         *
         * @param v policy
         * @return this
         */
        public Builder bufferPolicy(BufferPolicy v) {
            bufferPolicy = v;
            return this;
        }

        /**
         * Sets the fixed buffer limit.
         *
         * @param v packets
         * @return this
         */
        public Builder bufferLimitPkts(int v) {
            bufferLimitPkts = v;
            return this;
        }

        /**
         * Sets the priority.
         *
         * @param v priority
         * @return this
         */
        public Builder priority(int v) {
            priority = v;
            return this;
        }

        /**
         * Sets the queue layout.
         *
         * @param v layout
         * @return this
         */
        public Builder queueLayout(QueueLayout v) {
            queueLayout = v;
            return this;
        }

        /**
         * Sets the classifier threshold mM (the only one: the family is decided by the loss
         * response, docs/algorithm.md D11).
         *
         * @param m mM
         * @return this
         */
        public Builder classifier(int m) {
            mM = m;
            return this;
        }

        /**
         * Builds the intent (unvalidated; see {@link IntentValidator}).
         *
         * @return intent
         */
        public FairnessIntent build() {
            return new FairnessIntent(this);
        }
    }
}
