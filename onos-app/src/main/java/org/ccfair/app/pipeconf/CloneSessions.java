/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.pipeconf;

import org.ccfair.app.CcfairParams;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.group.DefaultGroupBucket;
import org.onosproject.net.group.DefaultGroupDescription;
import org.onosproject.net.group.DefaultGroupKey;
import org.onosproject.net.group.GroupBuckets;
import org.onosproject.net.group.Group;
import org.onosproject.net.group.GroupDescription;
import org.onosproject.net.group.GroupKey;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The group-update clone sessions of the ccfair program as ONOS CLONE groups.
 *
 * <p>Egress mirrors a truncated copy of a packet whose flow changed group to
 * clone session {@code update.mirror_session_base + pipe} (the const table
 * {@code EgressPipe.mirror_session_of_pipe}, pipe = the flow's ingress port bits 8:7),
 * and that copy must leave through the pipe's recirculation port
 * {@code pipe << 7 | update.recirc_port_<profile>} (docs/dataplane.md,
 * "Traffic manager"; the same plan as p4/tm/ccfair_tm.py). ONOS translates a
 * CLONE group into a P4Runtime clone session with session id = group id, one
 * replica per bucket output port and {@code packet_length_bytes} from the
 * bucket's TRUNCATE instruction (PiReplicationGroupTranslatorImpl, ONOS 2.7).</p>
 *
 * <p>Every pipe of the device gets a session, pipe count
 * {@code targets.profiles.<profile>.pipes} of params/ccfair.json: ONOS port
 * numbers are Stratum SDN port ids, whose bits say nothing about the pipe a
 * port is on, so the pipes cannot be derived from the ports of a policy.</p>
 */
public final class CloneSessions {

    /** Pipes of a Tofino (the program's mirror_session_of_pipe has one entry per pipe). */
    public static final int MAX_PIPES = 4;

    private final int sessionBase;
    private final int truncateBytes;
    private final long recircTofino;
    private final long recircTofino2;
    private final Map<String, Integer> pipes = new HashMap<>();

    /**
     * Creates the session plan.
     *
     * @param params shared parameters (update.*, targets.profiles.*.pipes)
     * @throws IllegalArgumentException naming the parameter if a profile's pipe count is missing or
     *                                  outside 1..{@link #MAX_PIPES}
     */
    public CloneSessions(CcfairParams params) {
        this.sessionBase = (int) params.integer("update", "mirror_session_base");
        this.truncateBytes = (int) params.integer("update", "truncate_bytes");
        this.recircTofino = params.integer("update", "recirc_port_tofino");
        this.recircTofino2 = params.integer("update", "recirc_port_tofino2");
        // Checked here, at app activation, rather than at the first push to a device.
        for (String profile : PipeconfLoader.PROFILES) {
            long n = params.profileInteger(profile, "pipes");
            if (n < 1 || n > MAX_PIPES) {
                throw new IllegalArgumentException("targets.profiles." + profile + ".pipes: " + n
                                                           + " outside 1.." + MAX_PIPES);
            }
            pipes.put(profile, (int) n);
        }
    }

    /**
     * Number of pipes of a profile's devices (each gets one session).
     *
     * @param profile "tofino" or "tofino2"
     * @return pipe count
     */
    public int pipes(String profile) {
        Integer n = pipes.get(profile);
        if (n == null) {
            throw new IllegalArgumentException("no pipe count for profile '" + profile + "'");
        }
        return n;
    }

    /**
     * Clone session (= ONOS group) id of a pipe.
     *
     * @param pipe pipe 0..3
     * @return session id
     */
    public int sessionId(int pipe) {
        return sessionBase + pipe;
    }

    /**
     * Recirculation port of a pipe (the Tofino device port, as the program and
     * the traffic-manager script number ports).
     *
     * @param profile "tofino" or "tofino2"
     * @param pipe    pipe 0..3
     * @return port number
     */
    public long recircPort(String profile, int pipe) {
        return ((long) pipe << 7) | ("tofino2".equals(profile) ? recircTofino2 : recircTofino);
    }

    /**
     * The group key of a pipe's session (unique per device and app).
     *
     * @param pipe pipe
     * @return key
     */
    public static GroupKey key(int pipe) {
        return new DefaultGroupKey(("ccfair-update-clone-pipe-" + pipe).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The CLONE group of one pipe.
     *
     * @param device  device
     * @param appId   the ccfair application id
     * @param profile "tofino" or "tofino2"
     * @param pipe    pipe 0..3
     * @return group description
     */
    public GroupDescription group(DeviceId device, ApplicationId appId, String profile, int pipe) {
        if (pipe < 0 || pipe >= MAX_PIPES) {
            throw new IllegalArgumentException("pipe " + pipe + " outside 0.." + (MAX_PIPES - 1));
        }
        GroupBuckets buckets = new GroupBuckets(List.of(DefaultGroupBucket.createCloneGroupBucket(
                DefaultTrafficTreatment.builder()
                        .setOutput(PortNumber.portNumber(recircPort(profile, pipe)))
                        .truncate(truncateBytes)
                        .build())));
        return new DefaultGroupDescription(device, GroupDescription.Type.CLONE, buckets, key(pipe),
                                           sessionId(pipe), appId);
    }

    /**
     * The CLONE groups of every pipe of a device.
     *
     * @param device  device
     * @param appId   the ccfair application id
     * @param profile "tofino" or "tofino2"
     * @return one group per pipe, in pipe order
     */
    public List<GroupDescription> groups(DeviceId device, ApplicationId appId, String profile) {
        return IntStream.range(0, pipes(profile)).mapToObj(p -> group(device, appId, profile, p))
                .collect(Collectors.toList());
    }

    /**
     * Whether an installed group has the group (= session) id of a description.
     *
     * @param have installed group
     * @param want description
     * @return true if nothing needs changing
     */
    static boolean sameId(Group have, GroupDescription want) {
        return want.givenGroupId() != null && have.id().id().intValue() == want.givenGroupId();
    }
}
