"""Gives an ONNX image model a fixed-size 8-bit input, so that the runtime loads it with nothing to prepare.

Usage: python3 -m focalscripts.onnx_input IN.onnx OUT.onnx --size WxH [--bgr] [--divide 255]

The model's one image input (float [1, 3, h, w], NCHW) is replaced by `rgb8`, uint8 [1, H, W, 3]:
rows of RGB pixels as libvips gives them. Nodes put in front of the graph turn it into what the
model wanted: Cast to float, then (--bgr) channels reversed, then NCHW, then (--divide) a division.
Everything else is copied byte for byte, but for the declared shapes of the outputs and of
intermediate values, which were for the old input size and are left out (the runtime infers them).

Why: OpenVINO can then compile the file itself (`compile_model_from_file`), and with a cache folder
import the compiled blob without reading the ONNX at all; a fixed size means no shape to prepare
on the first inference. One file per input size the detector uses.
"""
import argparse
import struct
import sys
import time

from .cli import prog
from .darknet_onnx import write_atomically
from .onnx_proto import FLOAT, LENGTH, UINT8, ProtoError, bytes_field, fields, node, string_of, tensor, value_info

INPUT = "rgb8"
# ModelProto.graph, GraphProto.node/initializer/input/output/value_info.
MODEL_GRAPH = 7
GRAPH_NODE, GRAPH_INITIALIZER, GRAPH_INPUT, GRAPH_OUTPUT, GRAPH_VALUE_INFO = 1, 5, 11, 12, 13


class InputError(Exception):
    """The model cannot be given the new input."""


def _image_input(graph):
    """The name of the graph's one input that is not an initializer."""
    initializers = {string_of(value, 8) for n, _, value, _ in fields(graph) if n == GRAPH_INITIALIZER}
    inputs = [string_of(value, 1) for n, _, value, _ in fields(graph) if n == GRAPH_INPUT]
    images = [name for name in inputs if name not in initializers]
    if len(images) != 1:
        raise InputError(f"the model has {len(images)} inputs besides its weights ({', '.join(map(str, images))}), not one image")
    return images[0]


def _front(original, width, height, bgr, divide):
    """The nodes and initializers that turn `rgb8` into the tensor named `original`."""
    nodes, initializers = [], []
    steps = [("Cast", {"to": FLOAT})]
    if bgr:
        initializers.append(tensor("focal_bgr_order", [3], 7, struct.pack("<3q", 2, 1, 0)))
        steps.append(("Gather", {"axis": 3}))
    steps.append(("Transpose", {"perm": [0, 3, 1, 2]}))
    if divide != 1:
        initializers.append(tensor("focal_divisor", [], FLOAT, struct.pack("<f", divide)))
        steps.append(("Div", {}))
    current = INPUT
    for index, (op, attributes) in enumerate(steps):
        output = original if index == len(steps) - 1 else f"focal_{op.lower()}"
        inputs = [current]
        if op == "Gather":
            inputs.append("focal_bgr_order")
        elif op == "Div":
            inputs.append("focal_divisor")
        nodes.append(node(op, inputs, output, **attributes))
        current = output
    return nodes, initializers


def _output_without_shape(encoded_value_info):
    """A graph output's ValueInfoProto with its element type but no shape."""
    name = string_of(encoded_value_info, 1)
    element = FLOAT
    for n, _, type_proto, _ in fields(encoded_value_info):
        if n == 2:
            for m, _, tensor_type, _ in fields(type_proto):
                if m == 1:
                    element = next((v for k, w, v, _ in fields(tensor_type) if k == 1 and w == 0), FLOAT)
    return value_info(name, None, element)


def rewrite(model, width, height, bgr=False, divide=1.0):
    """The bytes of `model` (an ONNX ModelProto) with the new input."""
    if not (32 <= width <= 8192 and 32 <= height <= 8192):
        raise InputError(f"{width}x{height}: width and height must be between 32 and 8192")
    if not divide > 0:
        raise InputError(f"--divide {divide} must be positive")
    out, graphs = [], 0
    for number, wire, value, encoded in fields(model):
        if number != MODEL_GRAPH or wire != LENGTH:
            out.append(encoded)
            continue
        graphs += 1
        original = _image_input(value)
        nodes, initializers = _front(original, width, height, bgr, divide)
        parts = [bytes_field(GRAPH_NODE, n) for n in nodes]  # first: the graph stays topologically sorted
        for n, _, field_value, field_bytes in fields(value):
            if n == GRAPH_INPUT and string_of(field_value, 1) == original:
                continue
            if n == GRAPH_VALUE_INFO:
                continue
            if n == GRAPH_OUTPUT:
                parts.append(bytes_field(GRAPH_OUTPUT, _output_without_shape(field_value)))
                continue
            parts.append(field_bytes)
        parts += [bytes_field(GRAPH_INITIALIZER, t) for t in initializers]
        parts.append(bytes_field(GRAPH_INPUT, value_info(INPUT, [1, height, width, 3], UINT8)))
        out.append(bytes_field(MODEL_GRAPH, b"".join(parts)))
    if graphs != 1:
        raise InputError(f"expected one graph in the model, found {graphs}")
    return b"".join(out)


def size(text):
    width, x, height = text.lower().partition("x")
    try:
        return int(width), int(height)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text}: expected WIDTHxHEIGHT, like 512x384") from None


def main():
    parser = argparse.ArgumentParser(prog=prog(__spec__), description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", help="the ONNX model, with one float NCHW image input")
    parser.add_argument("out", help="the model to write")
    parser.add_argument("--size", type=size, required=True, help="the fixed input size, WIDTHxHEIGHT")
    parser.add_argument("--bgr", action="store_true", help="the model wants its channels in BGR order")
    parser.add_argument("--divide", type=float, default=1.0, help="divide pixel values by this (255 for 0..1)")
    args = parser.parse_args()
    started = time.monotonic()
    try:
        with open(args.model, "rb") as f:
            model = f.read()
        data = rewrite(model, *args.size, bgr=args.bgr, divide=args.divide)
        write_atomically(args.out, data)
    except (OSError, ProtoError, InputError) as e:
        sys.exit(f"{prog(__spec__)}: {args.model}: {e}")
    print(f"{prog(__spec__)}: {args.out}: input {INPUT} uint8 [1, {args.size[1]}, {args.size[0]}, 3]"
          f"{', BGR' if args.bgr else ''}{f', divided by {args.divide:g}' if args.divide != 1 else ''}"
          f" in {time.monotonic() - started:.2f} s")


if __name__ == "__main__":
    main()
