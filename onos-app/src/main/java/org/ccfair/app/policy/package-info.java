/*
 * SPDX-License-Identifier: Apache-2.0
 */

/**
 * Fairness intents: model, validation, JSON form, and the distributed intent store.
 */
package org.ccfair.app.policy;
