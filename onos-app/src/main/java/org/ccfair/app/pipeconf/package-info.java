/*
 * SPDX-License-Identifier: Apache-2.0
 */

/**
 * ccfair pipeconfs for the tofino and tofino2 profiles, the packet-in/out interpreter, the flow-
 * objective pipeliner and the translation of computed policy to P4Runtime entities.
 */
package org.ccfair.app.pipeconf;
