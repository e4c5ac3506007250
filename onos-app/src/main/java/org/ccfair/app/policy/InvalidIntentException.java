/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.policy;

import com.google.common.collect.ImmutableList;

import java.util.List;

/**
 * An intent was rejected. Carries every problem found, each naming the field
 * ("scope.ports[1]: ..."), so an operator can fix them all at once.
 */
public class InvalidIntentException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final List<String> errors;

    /**
     * Creates the exception.
     *
     * @param errors one message per problem, each starting with the field
     */
    public InvalidIntentException(List<String> errors) {
        super("invalid fairness intent: " + String.join("; ", errors));
        this.errors = ImmutableList.copyOf(errors);
    }

    /**
     * Every problem found.
     *
     * @return messages
     */
    public List<String> errors() {
        return errors;
    }
}
