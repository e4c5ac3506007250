/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.ccfair.app.CcfairParams;
import org.ccfair.app.compute.DevicePolicy;
import org.ccfair.app.compute.PortPolicy;
import org.ccfair.app.policy.FairnessIntent;
import org.ccfair.app.stats.GroupStats;

import java.util.ArrayList;
import java.util.List;

/**
 * What the commands do, without Karaf: option parsing into the intent's JSON
 * form (so CLI, REST and netcfg share one validation path) and text output.
 */
public final class CliSupport {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private CliSupport() {
    }

    /**
     * Builds the JSON form of an intent from command options; only given options are set.
     *
     * @param id           intent id
     * @param devices      comma-separated device ids, or null
     * @param ports        comma-separated "deviceId/port", or null
     * @param objective    objective, or null
     * @param weights      "family=weight" items, or null
     * @param minAnt       min ant share, or null
     * @param minMice      min mice share, or null
     * @param targetDelay  target delay (us), or null
     * @param buffer       "adaptive" or "fixed:PKTS", or null
     * @param priority     priority, or null
     * @param classifier   mM (one integer), or null
     * @return JSON object to decode with {@link org.ccfair.app.policy.IntentJson}
     * @throws IllegalArgumentException on malformed option text, naming the option
     */
    public static ObjectNode intentJson(String id, String devices, String ports, String objective,
                                        List<String> weights, Double minAnt, Double minMice, Long targetDelay,
                                        String buffer, Integer priority, String classifier) {
        return intentJson(id, devices, ports, objective, weights, minAnt, minMice, targetDelay, buffer, priority,
                          classifier, null);
    }

    /**
     * Builds the JSON form of an intent from command options, queue layout included.
     *
     * @param id           intent id
     * @param devices      comma-separated device ids, or null
     * @param ports        comma-separated "deviceId/port", or null
     * @param objective    objective, or null
     * @param weights      "family=weight" items, or null
     * @param minAnt       min ant share, or null
     * @param minMice      min mice share, or null
     * @param targetDelay  target delay (us), or null
     * @param buffer       "adaptive" or "fixed:PKTS", or null
     * @param priority     priority, or null
     * @param classifier   mM (one integer), or null
     * @param queueLayout  "shared" or "isolated" (checked by IntentJson), or null
     * @return JSON object to decode with {@link org.ccfair.app.policy.IntentJson}
     * @throws IllegalArgumentException on malformed option text, naming the option
     */
    public static ObjectNode intentJson(String id, String devices, String ports, String objective,
                                        List<String> weights, Double minAnt, Double minMice, Long targetDelay,
                                        String buffer, Integer priority, String classifier, String queueLayout) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("id", id);
        if (devices != null && ports != null) {
            throw new IllegalArgumentException("--devices and --ports: give one of them");
        }
        if (devices != null) {
            ObjectNode s = o.putObject("scope");
            s.put("type", "devices");
            ArrayNode a = s.putArray("devices");
            split(devices).forEach(a::add);
        } else if (ports != null) {
            ObjectNode s = o.putObject("scope");
            s.put("type", "ports");
            ArrayNode a = s.putArray("ports");
            split(ports).forEach(a::add);
        }
        if (objective != null) {
            o.put("objective", objective);
        }
        if (weights != null && !weights.isEmpty()) {
            ObjectNode w = o.putObject("weights");
            for (String kv : weights) {
                int eq = kv.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("--weight: '" + kv + "' is not family=weight");
                }
                try {
                    w.put(kv.substring(0, eq), Double.parseDouble(kv.substring(eq + 1)));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("--weight: '" + kv + "' has no numeric weight");
                }
            }
        }
        if (minAnt != null) {
            o.put("min_ant_share", minAnt);
        }
        if (minMice != null) {
            o.put("min_mice_share", minMice);
        }
        if (targetDelay != null) {
            o.put("target_delay_us", targetDelay);
        }
        if (buffer != null) {
            if (buffer.startsWith("fixed:")) {
                o.put("buffer_policy", "fixed");
                try {
                    o.put("buffer_limit_pkts", Long.parseLong(buffer.substring(6)));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("--buffer: '" + buffer + "' is not fixed:PACKETS");
                }
            } else {
                o.put("buffer_policy", buffer);
            }
        }
        if (priority != null) {
            o.put("priority", priority);
        }
        if (queueLayout != null) {
            o.put("queue_layout", queueLayout);
        }
        if (classifier != null) {
            List<String> v = split(classifier);
            if (v.size() != 1) {
                // The old "mLD,mPL,mM" form: say why it no longer parses.
                throw new IllegalArgumentException("--classifier: '" + classifier + "' is not mM (mLD and mPL "
                                                           + "were removed: the family is decided by the loss "
                                                           + "response, docs/algorithm.md D11)");
            }
            try {
                o.putObject("classifier").put("m_m", Long.parseLong(v.get(0)));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--classifier: '" + v.get(0) + "' is not an integer");
            }
        }
        return o;
    }

    private static List<String> split(String s) {
        List<String> out = new ArrayList<>();
        for (String x : s.split(",")) {
            if (!x.isBlank()) {
                out.add(x.trim());
            }
        }
        return out;
    }

    /**
     * One line per intent.
     *
     * @param in intent
     * @return text
     */
    public static String intentLine(FairnessIntent in) {
        return String.format("id=%s, priority=%d, scope=%s, objective=%s%s, min_ant=%.3f, min_mice=%.3f, "
                                     + "target_delay_us=%d, buffer=%s%s, queue_layout=%s, m_m=%d",
                             in.id(), in.priority(), in.scope(), in.objective().text(),
                             in.weights().isEmpty() ? "" : ", weights=" + in.weights(), in.minAntShare(),
                             in.minMiceShare(), in.targetDelayUs(), in.bufferPolicy().text(),
                             in.bufferPolicy() == FairnessIntent.BufferPolicy.FIXED ? ":" + in.bufferLimitPkts() : "",
                             in.queueLayout().text(), in.mM());
    }

    /**
     * Lines describing one port's policy.
     *
     * @param p      shared parameters (group names)
     * @param d      device policy
     * @param port   port policy
     * @return text lines
     */
    public static List<String> portLines(CcfairParams p, DevicePolicy d, PortPolicy port) {
        List<String> out = new ArrayList<>();
        out.add(String.format("  port %d: role=%s, intent=%s, tvf_profile=%d, fair_rate_bin=%d, target_delay_us=%d, "
                                      + "buffer=%s:%d, queue_layout=%s, m_m=%d",
                              port.port(), port.role().name().toLowerCase(), port.intentId(), port.tvfProfileId(),
                              port.fairRateBin(), port.targetDelayUs(), port.adaptiveBuffer() ? "adaptive" : "fixed",
                              port.bufferLimitPkts(), port.queueLayout().text(), port.mM()));
        int slots = (int) p.integer("queues", "slots_per_group");
        StringBuilder sb = new StringBuilder("    queues:");
        for (int g = 0; g < port.groups(); g++) {
            sb.append(' ').append(p.groupName(g)).append('=').append('[');
            for (int s = 0; s < slots; s++) {
                sb.append(s == 0 ? "" : ",").append(port.queueOf(g, s, d.numQueues()));
            }
            sb.append(']');
        }
        out.add(sb.toString());
        return out;
    }

    /**
     * The policy lines of a port and, when any group has one, its share
     * correction (docs/algorithm.md D13) in TVF bins.
     *
     * @param p          shared parameters
     * @param d          the device's policy
     * @param port       the port's policy
     * @param correction per group, bins (empty: none)
     * @return text lines
     */
    public static List<String> portLines(CcfairParams p, DevicePolicy d, PortPolicy port, double[] correction) {
        List<String> out = portLines(p, d, port);
        StringBuilder sb = new StringBuilder("    share correction (bins):");
        boolean any = false;
        for (int g = 0; g < correction.length && g < p.numGroups(); g++) {
            if (correction[g] != 0) {
                sb.append(' ').append(p.groupName(g)).append('=').append(String.format("%+.2f", correction[g]));
                any = true;
            }
        }
        if (any) {
            out.add(sb.toString());
        }
        return out;
    }

    /**
     * One line per group of a port's statistics.
     *
     * @param p     shared parameters
     * @param port  port number
     * @param stats per-group statistics
     * @return text lines
     */
    public static List<String> statsLines(CcfairParams p, long port, List<GroupStats> stats) {
        List<String> out = new ArrayList<>();
        out.add("  port " + port + ":");
        for (GroupStats s : stats) {
            out.add(String.format("    %-9s flows=%d pkts=%d bytes=%d drops=%d ecn_marks=%d",
                                  s.group() < p.numGroups() ? p.groupName(s.group()) : String.valueOf(s.group()),
                                  s.activeFlows(), s.packets(), s.bytes(), s.drops(), s.marks()));
        }
        return out;
    }
}
