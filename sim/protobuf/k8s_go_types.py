#!/usr/bin/env python3
"""Writes k8s_go_types.cpp: the protobuf descriptors of Kubernetes' built-in types and the
Go facts their JSON form depends on.

kube-apiserver decodes a protobuf body into a Go struct and shows it as JSON through the
struct's tags, so the simulator needs, per message field, what the .proto files do not say:
its JSON name, whether the Go field is a pointer (a zero value on the wire is then set, not
absent) and whether its json tag has omitempty. Those come from the Go sources of the same
module versions (k8s.io/api, k8s.io/apimachinery), read here at build time; each package's
register.go GroupName gives the API group its messages serve.

usage: k8s_go_types.py PROTOC INCLUDE_DIR OUT_CPP
INCLUDE_DIR holds k8s.io/api and k8s.io/apimachinery, as the .proto files import them.
"""
import json
import os
import re
import subprocess
import sys

STRUCT = re.compile(r"^type (\w+) struct \{$")
FIELD = re.compile(r"^\s*(?:(\w+)\s+)?(\*?[\w.\[\]*]+(?:\[[\w.]*\][\w.*]+)?)\s+`([^`]*)`")
TAG = re.compile(r'(\w+):"([^"]*)"')


def package_facts(directory):
    """(proto package, group, version,
    {struct: {proto field: [json name, pointer, omitempty, omitzero]}}); a json name ""
    is an inline struct, and the entry "$typeMeta" a type that embeds TypeMeta."""
    proto = os.path.join(directory, "generated.proto")
    package = None
    with open(proto) as f:
        for line in f:
            m = re.match(r"^package ([\w.]+);", line)
            if m:
                package = m.group(1)
                break
    group = None
    structs = {}
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".go") or name.endswith("_test.go") or name.startswith("zz_generated"):
            continue
        current = None
        with open(os.path.join(directory, name)) as f:
            for line in f:
                # register.go's GroupName is what the scheme registers the types under.
                g = re.match(r'^const GroupName = "([^"]*)"', line)
                if g:
                    group = g.group(1)
                m = STRUCT.match(line)
                if m:
                    current = structs.setdefault(m.group(1), {})
                    continue
                if current is None:
                    continue
                if line.startswith("}"):
                    current = None
                    continue
                f_match = FIELD.match(line)
                if not f_match:
                    continue
                tags = dict(TAG.findall(f_match.group(3)))
                json_parts = tags.get("json", "-").split(",")
                if f_match.group(1) is None and f_match.group(2).endswith("TypeMeta") and json_parts[0] == "":
                    # An embedded TypeMeta: apiVersion and kind are this type's JSON fields,
                    # with no protobuf field behind them.
                    current["$typeMeta"] = ["", False, True, False]
                    continue
                if "protobuf" not in tags or "json" not in tags:
                    continue
                proto_name = dict(p.split("=", 1) for p in tags["protobuf"].split(",") if "=" in p).get("name")
                # json name "": an embedded struct whose fields are this type's (Volume's
                # VolumeSource); its message is a field on the wire.
                if not proto_name or json_parts[0] == "-":
                    continue
                current[proto_name] = [json_parts[0], f_match.group(2).startswith("*"),
                                       "omitempty" in json_parts[1:], "omitzero" in json_parts[1:]]
    version = os.path.basename(directory)
    return package, group, version, {k: v for k, v in structs.items() if v}


def descriptor_set(protoc, include, roots):
    """protoc's FileDescriptorSet of every generated.proto under roots, imports included.
    Its warnings (imports upstream leaves unused) are shown only when it fails."""
    protos = []
    for root in roots:
        for directory, _, files in sorted(os.walk(os.path.join(include, root))):
            if "generated.proto" in files and "/testapigroup" not in directory:
                protos.append(os.path.relpath(os.path.join(directory, "generated.proto"), include))
    run = subprocess.run([protoc, "--include_imports", "-o", "/dev/stdout", *protos], cwd=include,
                         capture_output=True)
    if run.returncode != 0:
        sys.stderr.write(run.stderr.decode())
        sys.exit("k8s_go_types.py: protoc failed")
    return run.stdout


def main():
    protoc, include, out = sys.argv[1], sys.argv[2], sys.argv[3]
    roots = [os.path.join(include, "k8s.io/api/"), os.path.join(include, "k8s.io/apimachinery/")]
    blob = descriptor_set(protoc, include, ["k8s.io/api/", "k8s.io/apimachinery/"])
    messages = {}
    groups = {}
    for root in roots:
        for directory, _, files in sorted(os.walk(root)):
            if "generated.proto" not in files or "/testapigroup" in directory or "/testdata" in directory:
                continue
            package, group, version, structs = package_facts(directory)
            if package is None:
                continue
            for struct, fields in structs.items():
                messages[package + "." + struct] = fields
            if group is not None and not package.startswith("k8s.io.apimachinery"):
                groups[(group + "/" if group else "") + version] = package
    facts = json.dumps({"messages": messages, "groups": groups}, sort_keys=True, separators=(",", ":"))
    with open(out, "w") as f:
        f.write("// Generated by sim/protobuf/k8s_go_types.py from k8s.io/api and k8s.io/apimachinery.\n")
        f.write('#include "sim/protobuf/k8s_go_types.hpp"\n\nnamespace schedopt::sim::protobuf {\n\n')
        f.write("static const unsigned char descriptors[] = {\n")
        for i in range(0, len(blob), 24):
            f.write("  " + ",".join(str(b) for b in blob[i:i + 24]) + ",\n")
        f.write("};\n\n")
        f.write("std::string_view k8s_descriptor_set() {\n")
        f.write("  return {reinterpret_cast<const char*>(descriptors), sizeof(descriptors)};\n}\n\n")
        f.write("static const char facts[] = {\n")
        raw = facts.encode()
        for i in range(0, len(raw), 24):
            f.write("  " + ",".join(str(b) for b in raw[i:i + 24]) + ",\n")
        f.write("};\n\n")
        f.write("std::string_view k8s_go_facts() {\n  return {facts, sizeof(facts)};\n}\n\n")
        f.write("} // namespace schedopt::sim::protobuf\n")


if __name__ == "__main__":
    main()
