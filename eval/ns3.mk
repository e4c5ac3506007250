# SPDX-License-Identifier: Apache-2.0
# ns-3.44 as shipped by PyPI's ns3 wheel (eval/requirements-ns3.txt), found in the project's venv.
# The wheel's pkg-config/CMake files carry its builder's paths, so the flags are spelt out here.
# Included by eval/Makefile and eval/model/Makefile; REPO must point at the repository root.
NS3_PY     ?= $(REPO)/.venv/bin/python
NS3_PREFIX ?= $(shell $(NS3_PY) -c 'import os,sysconfig; print(os.path.join(sysconfig.get_paths()["purelib"], "ns3"))' 2>/dev/null)
NS3_VER    := 3.44
ifeq ($(wildcard $(NS3_PREFIX)/include/ns3/core-module.h),)
ifneq ($(MAKECMDGOALS),clean)
$(error ns-3 $(NS3_VER) not found in the venv ($(NS3_PY)): run tools/setup.sh (installs eval/requirements-ns3.txt))
endif
endif
# ns-3.44's headers need C++20; -isystem keeps their warnings out of ours.
NS3_CXXSTD := -std=c++20
# The definitions the wheel's CMake package exports to its users (ns3Targets.cmake): they
# select class layouts (e.g. members that exist only with logging) and keep NS_ASSERT/NS_LOG.
NS3_CFLAGS := -isystem $(NS3_PREFIX)/include -DNS3_BUILD_PROFILE_RELEASE -DNS3_LOG_ENABLE -DNS3_ASSERT_ENABLE
ns3lib      = $(foreach m,$(1),-lns$(NS3_VER)-$(m))
NS3_LDFLAGS := -L$(NS3_PREFIX)/lib64 -Wl,-rpath,$(NS3_PREFIX)/lib64
