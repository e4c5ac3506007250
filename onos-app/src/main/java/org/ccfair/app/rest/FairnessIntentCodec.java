/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.rest;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.ccfair.app.policy.FairnessIntent;
import org.ccfair.app.policy.IntentJson;
import org.onosproject.codec.CodecContext;
import org.onosproject.codec.JsonCodec;

/**
 * ONOS codec of fairness intents, registered with ONOS's CodecService so
 * other ONOS components can encode and decode intents. Delegates to
 * {@link IntentJson}: one JSON form, one validation; decoding an invalid
 * intent throws {@link org.ccfair.app.policy.InvalidIntentException}.
 */
public final class FairnessIntentCodec extends JsonCodec<FairnessIntent> {

    private final IntentJson json;

    /**
     * Creates the codec.
     *
     * @param json intent JSON form
     */
    public FairnessIntentCodec(IntentJson json) {
        this.json = json;
    }

    @Override
    public ObjectNode encode(FairnessIntent intent, CodecContext context) {
        return json.encode(intent);
    }

    @Override
    public FairnessIntent decode(ObjectNode node, CodecContext context) {
        return json.decode(node);
    }
}
