/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.pipeconf;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

/**
 * The constant generator (tools/gen_p4_constants.py): output, and refusal of
 * profiles whose P4Info disagree.
 */
public class GenP4ConstantsTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private String[] run(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("python3", "tools/gen_p4_constants.py"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new String[]{String.valueOf(p.waitFor()), out};
    }

    @Test
    public void generatesConstantsAndRejectsDrift() throws Exception {
        File contract = new File("tools/contract-p4info.txt");
        String text = Files.readString(contract.toPath());
        File a = tmp.newFile("a.txt");
        File b = tmp.newFile("b.txt");
        Files.writeString(a.toPath(), text);
        Files.writeString(b.toPath(), text);
        File out = tmp.newFolder("out");
        String[] r = run(out.getPath(), a.getPath(), b.getPath());
        assertEquals(r[1], "0", r[0]);
        String java = Files.readString(new File(out, "org/ccfair/app/pipeconf/P4InfoConstants.java").toPath());
        assertTrue(java.contains("public static final PiTableId INGRESS_PIPE_QUEUEING_QUEUE_MAP = "
                                         + "PiTableId.of(\"IngressPipe.queueing.queue_map\");"));
        assertTrue(java.contains("public static final int QID_BITWIDTH = 8;"));
        assertTrue(java.contains("// GENERATED"));

        Files.writeString(b.toPath(), text.replace("EgressPipe.marker.tvf\"", "EgressPipe.marker.tvf2\""));
        r = run(out.getPath(), a.getPath(), b.getPath());
        assertNotEquals("0", r[0]);
        assertTrue(r[1], r[1].contains("name different objects") && r[1].contains("EgressPipe.marker.tvf2"));

        Files.writeString(b.toPath(), text.replace("name: \"qid\"\n    bitwidth: 8", "name: \"qid\"\n    bitwidth: 7"));
        r = run(out.getPath(), a.getPath(), b.getPath());
        assertNotEquals("0", r[0]);
        assertTrue(r[1], r[1].contains("differs between"));

        r = run(out.getPath(), new File(tmp.getRoot(), "missing.txt").getPath());
        assertNotEquals("a missing P4Info without --fallback fails", "0", r[0]);
        r = run("--fallback", a.getPath(), out.getPath(), new File(tmp.getRoot(), "missing.txt").getPath());
        assertEquals(r[1], "0", r[0]);
        assertTrue(r[1], r[1].contains("\nSKIPPED: ONOS app constants from committed P4Info"));
    }
}
