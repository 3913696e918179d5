#!/usr/bin/env python3
"""Writes the ONNX backend node test cases to a folder.

The onnx wheel ships the generators of its node tests (onnx.backend.test.case.
node) but not their data; this script runs the generators and writes every
case as <out>/<case>/model.onnx plus test_data_set_<i>/{input,output}_<j>.pb,
the layout of the ONNX repository. A stamp file with the versions of onnx and
ml_dtypes (which computes the references of the 4- and 2-bit casts) makes
reruns instant.
"""
import argparse
import os
import shutil
import sys
import warnings

import ml_dtypes
import onnx
from onnx import numpy_helper
from onnx.backend.test.case import node


def write_case(case, out_dir):
    case_dir = os.path.join(out_dir, case.name)
    if os.path.exists(case_dir):
        shutil.rmtree(case_dir)
    os.makedirs(case_dir)
    with open(os.path.join(case_dir, "model.onnx"), "wb") as f:
        f.write(case.model.SerializeToString())
    graph = case.model.graph
    for i, (inputs, outputs) in enumerate(case.data_sets):
        data_dir = os.path.join(case_dir, f"test_data_set_{i}")
        os.makedirs(data_dir)
        for kind, values, infos in (("input", inputs, graph.input), ("output", outputs, graph.output)):
            for j, value in enumerate(values):
                info = infos[j] if j < len(infos) else None
                if info is not None and not info.type.HasField("tensor_type"):
                    continue  # sequences, maps, optionals: not tensors
                proto = value if isinstance(value, onnx.TensorProto) else numpy_helper.from_array(value, info.name if info else "")
                with open(os.path.join(data_dir, f"{kind}_{j}.pb"), "wb") as f:
                    f.write(proto.SerializeToString())


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out_dir")
    args = parser.parse_args()
    stamp = os.path.join(args.out_dir, ".onnx-version")
    versions = f"onnx {onnx.__version__}, ml_dtypes {ml_dtypes.__version__}"
    if os.path.exists(stamp) and open(stamp).read() == versions:
        return 0
    os.makedirs(args.out_dir, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = node.collect_testcases(None)
    for case in cases:
        write_case(case, args.out_dir)
    with open(stamp, "w") as f:
        f.write(versions)
    print(f"wrote {len(cases)} node test cases ({versions}) to {args.out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
