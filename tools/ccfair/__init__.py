# SPDX-License-Identifier: Apache-2.0
"""Shared Python helpers for ccfair tools, tests and the evaluation."""
