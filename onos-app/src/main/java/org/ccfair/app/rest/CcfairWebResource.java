/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.rest;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.ccfair.app.CcfairService;
import org.ccfair.app.PushStatus;
import org.ccfair.app.compute.DevicePolicy;
import org.ccfair.app.compute.PortPolicy;
import org.ccfair.app.policy.FairnessIntent;
import org.ccfair.app.policy.InvalidIntentException;
import org.ccfair.app.stats.GroupStats;
import org.onosproject.rest.AbstractWebResource;

import javax.ws.rs.Consumes;
import javax.ws.rs.DELETE;
import javax.ws.rs.GET;
import javax.ws.rs.POST;
import javax.ws.rs.PUT;
import javax.ws.rs.Path;
import javax.ws.rs.PathParam;
import javax.ws.rs.Produces;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * ccfair REST API: fairness intents, compiled policy, live statistics, push
 * status. Errors are JSON objects {"errors": [...]} naming the field; a
 * rejected request changes nothing.
 */
@Path("")
public class CcfairWebResource extends AbstractWebResource {

    private static final ObjectMapper ERRORS = new ObjectMapper();
    private static volatile Supplier<CcfairService> locator;

    /**
     * Overrides how the service is found (tests; ONOS uses its service directory).
     *
     * @param l supplier, or null for the default
     */
    public static void setServiceLocator(Supplier<CcfairService> l) {
        locator = l;
    }

    private CcfairService service() {
        Supplier<CcfairService> l = locator;
        return l != null ? l.get() : get(CcfairService.class);
    }

    private PolicyCodec codec(CcfairService s) {
        return new PolicyCodec(s.params(), s::shareCorrection);
    }

    private static Response error(Response.Status st, List<String> errors) {
        ObjectNode o = ERRORS.createObjectNode();
        ArrayNode a = o.putArray("errors");
        errors.forEach(a::add);
        return Response.status(st).entity(o.toString()).type(MediaType.APPLICATION_JSON).build();
    }

    private static String read(InputStream in) throws IOException {
        return in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }

    /**
     * Lists every fairness intent.
     *
     * @return 200 {"intents": [...]}
     */
    @GET
    @Path("intents")
    @Produces(MediaType.APPLICATION_JSON)
    public Response listIntents() {
        CcfairService s = service();
        ObjectNode root = mapper().createObjectNode();
        ArrayNode a = root.putArray("intents");
        s.intents().forEach(i -> a.add(s.intentJson().encode(i)));
        return ok(root.toString()).build();
    }

    /**
     * Gets one fairness intent.
     *
     * @param id intent id
     * @return 200 intent, 404 if absent
     */
    @GET
    @Path("intents/{id}")
    @Produces(MediaType.APPLICATION_JSON)
    public Response getIntent(@PathParam("id") String id) {
        CcfairService s = service();
        Optional<FairnessIntent> in = s.intent(id);
        if (in.isEmpty()) {
            return error(Response.Status.NOT_FOUND, List.of("id: no intent '" + id + "'"));
        }
        return ok(s.intentJson().encode(in.get()).toString()).build();
    }

    /**
     * Creates a fairness intent.
     *
     * @param body intent JSON
     * @return 201 with Location, 400 listing every invalid field, 409 if the id exists
     * @throws IOException if the body cannot be read
     */
    @POST
    @Path("intents")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response createIntent(InputStream body) throws IOException {
        CcfairService s = service();
        FairnessIntent in;
        try {
            in = s.intentJson().fromText(read(body));
        } catch (InvalidIntentException e) {
            return error(Response.Status.BAD_REQUEST, e.errors());
        }
        if (!s.addIntent(in)) {
            return error(Response.Status.CONFLICT, List.of("id: intent '" + in.id()
                    + "' exists (use PUT /intents/" + in.id() + " to replace it)"));
        }
        s.recompute();
        return Response.created(URI.create("intents/" + in.id()))
                .entity(s.intentJson().encode(in).toString()).type(MediaType.APPLICATION_JSON).build();
    }

    /**
     * Creates or replaces a fairness intent.
     *
     * @param id   intent id (must equal the body's id)
     * @param body intent JSON
     * @return 200 replaced, 201 created, 400 listing every invalid field
     * @throws IOException if the body cannot be read
     */
    @PUT
    @Path("intents/{id}")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response putIntent(@PathParam("id") String id, InputStream body) throws IOException {
        CcfairService s = service();
        FairnessIntent in;
        try {
            in = s.intentJson().fromText(read(body));
        } catch (InvalidIntentException e) {
            return error(Response.Status.BAD_REQUEST, e.errors());
        }
        if (!in.id().equals(id)) {
            return error(Response.Status.BAD_REQUEST, List.of("id: body id '" + in.id()
                    + "' differs from the path id '" + id + "'"));
        }
        boolean existed = s.putIntent(in).isPresent();
        s.recompute();
        String out = s.intentJson().encode(in).toString();
        return existed ? ok(out).build()
                : Response.created(URI.create("intents/" + id)).entity(out).type(MediaType.APPLICATION_JSON).build();
    }

    /**
     * Removes a fairness intent.
     *
     * @param id intent id
     * @return 204, 404 if absent
     */
    @DELETE
    @Path("intents/{id}")
    @Produces(MediaType.APPLICATION_JSON)
    public Response deleteIntent(@PathParam("id") String id) {
        CcfairService s = service();
        if (s.removeIntent(id).isEmpty()) {
            return error(Response.Status.NOT_FOUND, List.of("id: no intent '" + id + "'"));
        }
        s.recompute();
        return Response.noContent().build();
    }

    /**
     * Effective compiled policy of every device.
     *
     * @return 200 {"devices": [...]}
     */
    @GET
    @Path("policy")
    @Produces(MediaType.APPLICATION_JSON)
    public Response policies() {
        CcfairService s = service();
        PolicyCodec c = codec(s);
        ObjectNode root = mapper().createObjectNode();
        ArrayNode a = root.putArray("devices");
        s.policies().values().forEach(d -> a.add(c.device(d)));
        return ok(root.toString()).build();
    }

    /**
     * Effective compiled policy of one device.
     *
     * @param deviceId device id, e.g. device:leaf1
     * @return 200 policy, 404 if the device is unknown
     */
    @GET
    @Path("policy/{deviceId}")
    @Produces(MediaType.APPLICATION_JSON)
    public Response policy(@PathParam("deviceId") String deviceId) {
        CcfairService s = service();
        DevicePolicy d = s.policies().get(deviceId);
        if (d == null) {
            return error(Response.Status.NOT_FOUND, List.of("deviceId: no policy for '" + deviceId + "'"));
        }
        return ok(codec(s).device(d).toString()).build();
    }

    /**
     * Effective compiled policy of one port.
     *
     * @param deviceId device id
     * @param port     port number
     * @return 200 port policy, 404 if unknown, 400 if the port is not a number
     */
    @GET
    @Path("policy/{deviceId}/{port}")
    @Produces(MediaType.APPLICATION_JSON)
    public Response portPolicy(@PathParam("deviceId") String deviceId, @PathParam("port") String port) {
        CcfairService s = service();
        Long n = parsePort(port);
        if (n == null) {
            return notAPort(port);
        }
        DevicePolicy d = s.policies().get(deviceId);
        PortPolicy p = d == null ? null : d.port(n);
        if (p == null) {
            return error(Response.Status.NOT_FOUND, List.of("port: no policy for " + deviceId + "/" + port));
        }
        return ok(codec(s).port(d, p).toString()).build();
    }

    /**
     * Live per-(port, group) statistics of a device.
     *
     * @param deviceId device id
     * @return 200 {"device", "ports": [...]}, 404 if the device is unknown
     */
    @GET
    @Path("stats/{deviceId}")
    @Produces(MediaType.APPLICATION_JSON)
    public Response stats(@PathParam("deviceId") String deviceId) {
        CcfairService s = service();
        if (!s.policies().containsKey(deviceId)) {
            return error(Response.Status.NOT_FOUND, List.of("deviceId: unknown device '" + deviceId + "'"));
        }
        PolicyCodec c = codec(s);
        ObjectNode root = mapper().createObjectNode();
        root.put("device", deviceId);
        ArrayNode a = root.putArray("ports");
        new java.util.TreeMap<>(s.stats(deviceId)).forEach((p, gs) -> a.add(c.stats(p, gs)));
        return ok(root.toString()).build();
    }

    /**
     * Live per-group statistics of one port.
     *
     * @param deviceId device id
     * @param port     port number
     * @return 200 statistics, 404 if not read (yet), 400 if the port is not a number
     */
    @GET
    @Path("stats/{deviceId}/{port}")
    @Produces(MediaType.APPLICATION_JSON)
    public Response portStats(@PathParam("deviceId") String deviceId, @PathParam("port") String port) {
        CcfairService s = service();
        Long n = parsePort(port);
        if (n == null) {
            return notAPort(port);
        }
        List<GroupStats> gs = s.stats(deviceId).get(n);
        if (gs == null) {
            return error(Response.Status.NOT_FOUND, List.of("port: no statistics for " + deviceId + "/" + port));
        }
        return ok(codec(s).stats(n, gs).toString()).build();
    }

    /**
     * Policy push status of every device (failed writes, retries).
     *
     * @return 200 {"devices": [...]}
     */
    @GET
    @Path("status")
    @Produces(MediaType.APPLICATION_JSON)
    public Response status() {
        CcfairService s = service();
        PolicyCodec c = codec(s);
        ObjectNode root = mapper().createObjectNode();
        ArrayNode a = root.putArray("devices");
        for (Map.Entry<String, PushStatus> e : s.pushStatus().entrySet()) {
            a.add(c.status(e.getKey(), e.getValue()));
        }
        return ok(root.toString()).build();
    }

    /**
     * The OpenAPI description of this API.
     *
     * @return 200 OpenAPI 3 JSON
     * @throws IOException if the bundled description cannot be read
     */
    @GET
    @Path("openapi.json")
    @Produces(MediaType.APPLICATION_JSON)
    public Response openApi() throws IOException {
        try (InputStream in = getClass().getResourceAsStream(OPENAPI)) {
            return ok(read(in)).build();
        }
    }

    /** Classpath location of the OpenAPI description. */
    public static final String OPENAPI = "/ccfair/openapi.json";

    private static Response notAPort(String port) {
        return error(Response.Status.BAD_REQUEST, List.of("port: '" + port + "' is not a port number"));
    }

    private static Long parsePort(String s) {
        try {
            long n = Long.parseLong(s);
            return n < 0 ? null : n;
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
