/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app;

import org.ccfair.app.compute.DevicePolicy;
import org.ccfair.app.policy.FairnessIntent;
import org.ccfair.app.policy.IntentJson;
import org.ccfair.app.stats.GroupStats;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;

/**
 * What REST, CLI and netcfg use: intents, the compiled policy, live
 * statistics and push status.
 */
public interface CcfairService {

    /**
     * Shared parameters.
     *
     * @return params
     */
    CcfairParams params();

    /**
     * The intent JSON codec (validating).
     *
     * @return codec
     */
    IntentJson intentJson();

    /**
     * Every intent, sorted by id.
     *
     * @return intents
     */
    List<FairnessIntent> intents();

    /**
     * One intent.
     *
     * @param id id
     * @return intent if present
     */
    Optional<FairnessIntent> intent(String id);

    /**
     * Adds a new intent.
     *
     * @param intent intent
     * @return false if the id exists (nothing changed)
     * @throws org.ccfair.app.policy.InvalidIntentException if invalid (nothing stored)
     */
    boolean addIntent(FairnessIntent intent);

    /**
     * Adds or replaces an intent.
     *
     * @param intent intent
     * @return the replaced intent, if any
     * @throws org.ccfair.app.policy.InvalidIntentException if invalid (nothing stored)
     */
    Optional<FairnessIntent> putIntent(FairnessIntent intent);

    /**
     * Removes an intent.
     *
     * @param id id
     * @return the removed intent, if any
     */
    Optional<FairnessIntent> removeIntent(String id);

    /**
     * Compiled policy of every device (as last computed).
     *
     * @return device id to policy
     */
    SortedMap<String, DevicePolicy> policies();

    /**
     * A port's share correction as the last round computed it (docs/algorithm.md D13).
     *
     * @param deviceId device id
     * @param port     port number
     * @return per group, TVF bins added to its curve (empty or all 0 if the port has none)
     */
    double[] shareCorrection(String deviceId, long port);

    /**
     * Live statistics of a device.
     *
     * @param deviceId device id
     * @return port to per-group statistics
     */
    Map<Long, List<GroupStats>> stats(String deviceId);

    /**
     * Push status of every device.
     *
     * @return device id to status
     */
    SortedMap<String, PushStatus> pushStatus();

    /**
     * Requests a recomputation now (it also runs periodically and on events).
     */
    void recompute();
}
