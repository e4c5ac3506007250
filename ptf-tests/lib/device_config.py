# SPDX-License-Identifier: Apache-2.0
"""The ``p4_device_config`` bytes of SetForwardingPipelineConfig, from bf-p4c's output.

Two switch agents take two formats:
- Stratum (``stratum_bfrt``): a serialized ``stratum.hal.barefoot.BfPipelineConfig``
  (p4_name, bfruntime_info = bfrt.json, profiles[] = {profile_name, context.json,
  tofino.bin, pipe_scope}). The message is declared here from its field numbers
  so no Stratum checkout is needed; ``parse_bf_pipeline_config`` reads it back.
- bf_switchd's own P4Runtime server (PI): the legacy packing
  ``u32le len | program name | u32le len | tofino.bin | u32le len | context.json``.

BMv2's ``simple_switch_grpc`` (agent "bmv2", profile bmv2, from p4c-bm2-ss) takes
the BMv2 JSON file's bytes as they are.
"""
import os
import struct

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

PROGRAM_NAME = "ccfair"


def _bf_pipeline_config_class():
    fdp = descriptor_pb2.FileDescriptorProto()
    fdp.name = "ccfair_ptf/bf_pipeline_config.proto"
    fdp.package = "stratum.hal.barefoot"
    fdp.syntax = "proto3"
    msg = fdp.message_type.add()
    msg.name = "BfPipelineConfig"
    prof = msg.nested_type.add()
    prof.name = "Profile"
    F = descriptor_pb2.FieldDescriptorProto
    for parent, fields in (
            (prof, [("profile_name", 1, F.TYPE_STRING, F.LABEL_OPTIONAL, None),
                    ("context", 2, F.TYPE_BYTES, F.LABEL_OPTIONAL, None),
                    ("binary", 3, F.TYPE_BYTES, F.LABEL_OPTIONAL, None),
                    ("pipe_scope", 4, F.TYPE_UINT32, F.LABEL_REPEATED, None)]),
            (msg, [("p4_name", 1, F.TYPE_STRING, F.LABEL_OPTIONAL, None),
                   ("bfruntime_info", 2, F.TYPE_BYTES, F.LABEL_OPTIONAL, None),
                   ("profiles", 3, F.TYPE_MESSAGE, F.LABEL_REPEATED,
                    ".stratum.hal.barefoot.BfPipelineConfig.Profile")])):
        for name, num, typ, label, type_name in fields:
            f = parent.field.add(name=name, number=num, type=typ, label=label)
            if type_name:
                f.type_name = type_name
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    return message_factory.MessageFactory(pool).GetPrototype(
        pool.FindMessageTypeByName("stratum.hal.barefoot.BfPipelineConfig"))


BfPipelineConfig = _bf_pipeline_config_class()


def artifacts(build_dir, profile):
    """Paths of the compiled program for `profile` under p4/build/<profile>/ (not checked)."""
    if profile == "bmv2":
        return {"p4info": os.path.join(build_dir, "p4info.txt"), "json": os.path.join(build_dir, "bmv2.json")}
    binary = "tofino2.bin" if profile == "tofino2" else "tofino.bin"
    return {
        "p4info": os.path.join(build_dir, "p4info.txt"),
        "bfrt": os.path.join(build_dir, "bfrt.json"),
        "binary": os.path.join(build_dir, "pipe", binary),
        "context": os.path.join(build_dir, "pipe", "context.json"),
    }


def missing_artifacts(build_dir, profile):
    return [p for p in artifacts(build_dir, profile).values() if not os.path.isfile(p)]


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def stratum_config(build_dir, profile, pipe_scope=(0, 1, 2, 3), profile_name="pipe"):
    a = artifacts(build_dir, profile)
    cfg = BfPipelineConfig()
    cfg.p4_name = PROGRAM_NAME
    cfg.bfruntime_info = _read(a["bfrt"])
    p = cfg.profiles.add()
    p.profile_name = profile_name
    p.context = _read(a["context"])
    p.binary = _read(a["binary"])
    p.pipe_scope.extend(pipe_scope)
    return cfg.SerializeToString()


def parse_bf_pipeline_config(data):
    cfg = BfPipelineConfig()
    cfg.ParseFromString(data)
    return cfg


def pi_config(build_dir, profile):
    a = artifacts(build_dir, profile)
    out = b""
    for blob in (PROGRAM_NAME.encode(), _read(a["binary"]), _read(a["context"])):
        out += struct.pack("<I", len(blob)) + blob
    return out


def parse_pi_config(data):
    parts, off = [], 0
    while off < len(data):
        (n,) = struct.unpack_from("<I", data, off)
        parts.append(data[off + 4:off + 4 + n])
        off += 4 + n
    if len(parts) != 3 or off != len(data):
        raise ValueError("not a PI device config: %d parts, %d trailing bytes" % (len(parts), len(data) - off))
    return parts


def bmv2_config(build_dir):
    return _read(artifacts(build_dir, "bmv2")["json"])


def build(agent, build_dir, profile):
    if agent == "bmv2":
        if profile != "bmv2":
            raise ValueError("agent bmv2 runs profile bmv2 (p4c-bm2-ss output), not %r" % profile)
        return bmv2_config(build_dir)
    if agent == "stratum":
        return stratum_config(build_dir, profile)
    if agent == "switchd":
        return pi_config(build_dir, profile)
    raise ValueError("unknown switch agent %r (stratum, switchd or bmv2)" % agent)
