"""Runs VGF files on Vulkan for VgfRunner (runner.py), one request after another, in its own process.

Run as a script (``python worker.py``) with the Vulkan environment VgfRunner sets: the loader reads it
once per process, and a crash in a driver or layer ends this process, not the caller's. It imports only
numpy and Arm's ML SDK Python modules, so it starts in well under a second.

Protocol: pickled ``(vgf_bytes, [input arrays])`` requests on stdin; for each, a pickled
``("ok", [output arrays])`` or ``("error", message)`` reply on the original stdout. Native libraries'
own prints go to stderr.
"""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import pickle
import subprocess
import sys
import tempfile
from typing import BinaryIO

import numpy as np
import scenario_runner_py as sr

# VkFormat of a VGF tensor -> the scenario runner's format and the numpy dtype of its elements.
_FORMATS = {
    "VK_FORMAT_R8_BOOL_ARM": (sr.Format.R8BoolArm, np.bool_),
    "VK_FORMAT_R8_SINT": (sr.Format.R8Sint, np.int8),
    "VK_FORMAT_R16_SINT": (sr.Format.R16Sint, np.int16),
    "VK_FORMAT_R32_SINT": (sr.Format.R32Sint, np.int32),
    "VK_FORMAT_R16_SFLOAT": (sr.Format.R16Sfloat, np.float16),
    "VK_FORMAT_R32_SFLOAT": (sr.Format.R32Sfloat, np.float32),
}


def _vgf_dump() -> pathlib.Path:
    spec = importlib.util.find_spec("vgf_lib")
    if spec is None or spec.origin is None:
        raise RuntimeError("Arm's VGF library is not installed: `pip install ai-ml-sdk-vgf-library==0.11.0`")
    return pathlib.Path(spec.origin).parent / "binaries" / "bin" / "vgf_dump"


def _scenario_template(vgf_path: pathlib.Path) -> dict:
    """The VGF's resources and bindings, as ``vgf_dump --scenario-template`` describes them."""
    dumped = subprocess.run(
        [str(_vgf_dump()), "--input", str(vgf_path), "--scenario-template"], capture_output=True, text=True
    )
    if dumped.returncode != 0:
        raise RuntimeError(f"vgf_dump cannot read the VGF: {dumped.stderr.strip()}")
    return json.loads(dumped.stdout)


def run_vgf(vgf: bytes, inputs: list[np.ndarray], scratch: pathlib.Path) -> list[np.ndarray]:
    vgf_path = scratch / "graph.vgf"
    vgf_path.write_bytes(vgf)
    template = _scenario_template(vgf_path)
    tensors = {
        resource["tensor"]["uid"]: resource["tensor"] for resource in template["resources"] if "tensor" in resource
    }
    (dispatch,) = [command["dispatch_graph"] for command in template["commands"]]
    bound = [(binding, tensors[binding["resource_ref"]]) for binding in dispatch["bindings"]]
    input_tensors = [(binding, tensor) for binding, tensor in bound if "src" in tensor]
    output_tensors = [(binding, tensor) for binding, tensor in bound if "dst" in tensor]
    if len(input_tensors) != len(inputs):
        raise RuntimeError(f"the VGF takes {len(input_tensors)} inputs, {len(inputs)} were given")

    builder = sr.ScenarioBuilder()
    info = sr.VgfInfo()
    info.load_source(str(vgf_path))
    dispatch_data = sr.DispatchVgfData(builder.add_vgf(info))
    ids = {
        tensor["uid"]: builder.add_tensor(tensor["dims"], _format(tensor)[0], debug_name=tensor["uid"])
        for _, tensor in bound
    }
    # The bindings property hands out a copy: assign the whole list.
    dispatch_data.bindings = [
        sr.TypedBinding(binding["set"], binding["id"], ids[tensor["uid"]], sr.DescriptorType.TensorArm)
        for binding, tensor in bound
    ]
    builder.add_dispatch_vgf(dispatch_data)
    scenario = builder.build()

    for index, ((_, tensor), array) in enumerate(zip(input_tensors, inputs)):
        _, dtype = _format(tensor)
        if tuple(array.shape) != tuple(tensor["dims"]) or array.dtype != dtype:
            raise RuntimeError(
                f"input {index} is {array.dtype}{list(array.shape)}, the VGF wants "
                f"{np.dtype(dtype)}{list(tensor['dims'])}"
            )
        scenario.upload(ids[tensor["uid"]], np.ascontiguousarray(array))
    scenario.run()
    outputs = []
    for _, tensor in output_tensors:
        _, dtype = _format(tensor)
        outputs.append(np.asarray(scenario.download(ids[tensor["uid"]])).view(dtype).reshape(tensor["dims"]))
    return outputs


def _format(tensor: dict) -> tuple[object, type]:
    if tensor["format"] not in _FORMATS:
        raise RuntimeError(f"VGF tensor {tensor['uid']} has format {tensor['format']}, which the runner cannot read")
    return _FORMATS[tensor["format"]]


def serve(requests: BinaryIO, replies: BinaryIO) -> None:
    with tempfile.TemporaryDirectory(prefix="arm_vgf_worker_") as tmp:
        while True:
            try:
                vgf, inputs = pickle.load(requests)
            except EOFError:
                return
            try:
                reply = ("ok", run_vgf(vgf, inputs, pathlib.Path(tmp)))
            except Exception as error:  # reported to the caller, who raises it with context
                reply = ("error", f"{type(error).__name__}: {error}")
            pickle.dump(reply, replies)
            replies.flush()


def main() -> None:
    replies = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # native prints must not corrupt the replies
    serve(sys.stdin.buffer, replies)


if __name__ == "__main__":
    main()
