# SPDX-License-Identifier: Apache-2.0
# ccfair: the two commands a newcomer needs are `make run` and `make test`.
# Both install what they need (tools/setup.sh) and are safe to re-run.
SHELL := /bin/bash
.DEFAULT_GOAL := help

.PHONY: help deps run test app p4 eval bench ptf testbed clean

help:
	@echo "make run    install deps, build, run the default fairness demo (FIFO, fq_codel, ccfair)"
	@echo "make test   install deps, run every test suite (Java, Python, C++, P4 checks, PTF and the testbed smoke on BMv2 when installed)"
	@echo "make deps   install what the project needs (apt, PyPI incl. ns-3.44; Maven resolves on first build)"
	@echo "make app    build the ONOS app (.oar) only"
	@echo "make p4     compile the P4 program for tofino and tofino2 (needs bf-p4c)"
	@echo "make eval   regenerate docs/results.md (full evaluation sweep, about 150 CPU-min: 80-90 min on 2 cores)"
	@echo "make bench  run the ONOS policy-computation benchmark (JMH)"
	@echo "make ptf    run the PTF suite on tofino-model (needs the Intel SDE)"
	@echo "make testbed  real kernel TCP (iperf3) through the P4 program on BMv2, FIFO vs ccfair vs the ns-3 model (root; about 12 min)"
	@echo "make clean  remove build outputs and the evaluation cache"
	@echo "make help   this list"

deps:
	@tools/setup.sh

run: deps
	@$(MAKE) -s -C eval demo

test: deps
	@tools/run-tests.sh

app: deps
	mvn -B -q -DskipTests package
	@ls -1 onos-app/target/*.oar

p4:
	@$(MAKE) -s -C p4 build

eval: deps
	@$(MAKE) -s -C eval eval

bench: deps
	@$(MAKE) -s -C onos-app bench

ptf: deps
	@ptf-tests/run

testbed: deps
	@$(MAKE) -s -C testbed run

clean:
	mvn -B -q clean || true
	rm -rf build p4/build eval/build
