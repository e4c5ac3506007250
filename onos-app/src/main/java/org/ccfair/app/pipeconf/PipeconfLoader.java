/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.pipeconf;

import org.onosproject.net.behaviour.Pipeliner;
import org.onosproject.net.pi.model.DefaultPiPipeconf;
import org.onosproject.net.pi.model.PiPipeconf;
import org.onosproject.net.pi.model.PiPipeconfId;
import org.onosproject.net.pi.model.PiPipelineInterpreter;
import org.onosproject.net.pi.service.PiPipeconfService;
import org.onosproject.p4runtime.model.P4InfoParser;
import org.onosproject.p4runtime.model.P4InfoParserException;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URL;
import java.util.ArrayList;
import java.util.List;

/**
 * Registers the ccfair pipeconfs (org.ccfair.tofino, org.ccfair.tofino2)
 * from the P4Info bundled at /p4info/PROFILE/p4info.txt and, when the
 * compiled program was present at build time, its device configuration
 * (/p4build/PROFILE/: pipeline_config.pb.bin for Stratum bfrt, else
 * PROFILE.bin + context.json as p4/compile.sh leaves them). Without a device configuration the pipeconf
 * still works for a switch whose pipeline is loaded out of band; the log says so.
 */
@Component(immediate = true)
public class PipeconfLoader {

    /** Profiles, as in params targets.profiles. */
    public static final String[] PROFILES = {"tofino", "tofino2"};

    private final Logger log = LoggerFactory.getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected PiPipeconfService pipeconfService;

    private final List<PiPipeconfId> registered = new ArrayList<>();

    /**
     * Pipeconf id of a profile.
     *
     * @param profile profile name
     * @return id
     */
    public static PiPipeconfId pipeconfId(String profile) {
        return new PiPipeconfId("org.ccfair." + profile);
    }

    @Activate
    protected void activate() {
        for (String profile : PROFILES) {
            try {
                PiPipeconf pc = build(profile);
                if (pc != null && !pipeconfService.getPipeconf(pc.id()).isPresent()) {
                    pipeconfService.register(pc);
                    registered.add(pc.id());
                }
            } catch (P4InfoParserException e) {
                log.error("ccfair pipeconf {}: bundled P4Info does not parse: {}", profile, e.getMessage());
            }
        }
    }

    @Deactivate
    protected void deactivate() {
        registered.forEach(pipeconfService::unregister);
        registered.clear();
    }

    /**
     * Builds a profile's pipeconf from the bundled resources.
     *
     * @param profile profile name
     * @return the pipeconf, or null if no P4Info is bundled for it
     * @throws P4InfoParserException if the P4Info is malformed
     */
    public PiPipeconf build(String profile) throws P4InfoParserException {
        URL p4info = getClass().getResource("/p4info/" + profile + "/p4info.txt");
        if (p4info == null) {
            log.warn("ccfair pipeconf {}: no P4Info bundled (p4/p4info/{}/p4info.txt absent at build time); "
                             + "not registered", profile, profile);
            return null;
        }
        DefaultPiPipeconf.Builder b = DefaultPiPipeconf.builder()
                .withId(pipeconfId(profile))
                .withPipelineModel(P4InfoParser.parse(p4info))
                .addBehaviour(PiPipelineInterpreter.class, "tofino".equals(profile)
                        ? CcfairInterpreter.Tofino.class : CcfairInterpreter.Tofino2.class)
                .addBehaviour(Pipeliner.class, CcfairPipeliner.class)
                .addExtension(PiPipeconf.ExtensionType.P4_INFO_TEXT, p4info);
        String dir = "/p4build/" + profile + "/";
        URL raw = getClass().getResource(dir + "pipeline_config.pb.bin");
        URL bin = getClass().getResource(dir + profile + ".bin"); // tofino.bin, tofino2.bin (p4/compile.sh)
        URL ctx = getClass().getResource(dir + "context.json");
        if (raw != null) {
            b.addExtension(PiPipeconf.ExtensionType.RAW_DEVICE_CONFIG, raw);
        } else if (bin != null && ctx != null) {
            b.addExtension(PiPipeconf.ExtensionType.TOFINO_BIN, bin)
                    .addExtension(PiPipeconf.ExtensionType.TOFINO_CONTEXT_JSON, ctx);
        } else {
            log.warn("ccfair pipeconf {}: no device config bundled (p4/build/{}/ absent at build time): ONOS will "
                             + "not push the pipeline; load the compiled program on the switch yourself",
                     profile, profile);
        }
        return b.build();
    }
}
