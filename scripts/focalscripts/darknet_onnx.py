"""Converts a Darknet YOLO network (.cfg and .weights) to ONNX for OpenVINO, standard library only.

Usage: python3 -m focalscripts.darknet_onnx CFG WEIGHTS OUT.onnx   (also writes OUT.heads.json)
       python3 -m focalscripts.darknet_onnx --heads CFG             (prints the heads JSON)

The model (ONNX IR 8, opset 13) has one input, `image` [1, 3, H, W]: float32 RGB in 0..1 (the
caller scales), H and W left symbolic. The network is convolutional throughout, so any size
works whose feature maps meet at every route: a multiple of 32 (the network's largest stride)
for YOLOv4-tiny. Its outputs are the raw maps of the convolutions that feed the [yolo] layers,
before any sigmoid, named `yolo_0`, `yolo_1`, ... in the .cfg's order, each
[1, A * (5 + C), gh, gw] (A anchors, C classes). Decoding is the runtime's: for cell (col, row) and
anchor a, with the channels of a at a * (5 + C) ... and s = scale_x_y,
    cx = (col + sigmoid(tx) * s - (s - 1) / 2) / gw      cy likewise with row and gh
    w = exp(tw) * anchor_w / W                            h = exp(th) * anchor_h / H
    objectness = sigmoid(to)                              score_k = sigmoid(tc_k) * objectness
`yolo_decode_spec` gives each head's anchors, scale_x_y and classes; OUT.heads.json and --heads
hold them as FocalDetection's YOLOHeads reads them:
    {"classes": C, "heads": [{"anchors": [[w, h], ...], "scale_x_y": s}, ...]}

What it converts, read from the .cfg rather than assumed (anything else is refused):
  [convolutional]  Conv, batch normalisation folded into its weights and bias with Darknet's and
                   OpenCV's epsilon (BN_EPSILON); activation=leaky (LeakyRelu 0.1) or linear;
                   pad=1 is a padding of size/2; groups
  [maxpool]        MaxPool with Darknet's padding (size - 1 by default, the odd pixel at the end),
                   so size 2 stride 2 halves and size 2 stride 1 keeps the size
  [route]          Concat of the layers; with groups/group_id, the group_id-th channel slice of each
  [upsample]       Resize by stride, nearest
  [yolo]           marks its input as an output; new_coords=1 (Scaled-YOLOv4) is refused

The ONNX protobuf is written by hand (focalscripts.onnx_proto), the weights as little-endian float32 raw_data; no numpy, no onnx package.
"""
import argparse
import json
import math
import os
import struct
import sys
import time
from array import array

from .cli import prog
from .onnx_proto import FLOAT, INT64, bytes_field, int_field, node, string_field, tensor, value_info

# Batch normalisation's epsilon. Darknet's normalize_cpu adds .000001f; OpenCV's importer
# (modules/dnn/src/darknet/darknet_io.cpp, setLayersParams::setBatchNorm) sets its BatchNorm
# layer's "eps" to 1E-6 too, overriding that layer's own default of 1E-5.
BN_EPSILON = 1e-6
LEAKY_SLOPE = 0.1  # Darknet's leaky activation; OpenCV's ReLU negative_slope 0.1f
IR_VERSION = 8
OPSET = 13


# The options each section may carry; any other is refused, since it may change the output.
# [net] and [yolo] are mostly training settings, so there only the listed refusals apply.
OPTIONS = {
    "convolutional": {"filters", "size", "stride", "stride_x", "stride_y", "pad", "padding", "groups",
                      "batch_normalize", "activation", "dilation", "stopbackward"},
    "maxpool": {"size", "stride", "stride_x", "stride_y", "padding"},
    "route": {"layers", "groups", "group_id", "stopbackward"},
    "upsample": {"stride", "scale"},
}
ALIASES = {"conv": "convolutional", "max": "maxpool", "network": "net"}
ACTIVATIONS = ("leaky", "linear")


class ConversionError(Exception):
    """The files cannot be converted: malformed, or describing what this converter does not do."""


# --- The .cfg -------------------------------------------------------------------------------------

class Section:
    """One [section] of a .cfg: its kind, the line it starts on and its options (as text)."""

    def __init__(self, kind, line):
        self.kind = ALIASES.get(kind, kind)
        self.line = line
        self.options = {}

    def where(self):
        return f"[{self.kind}] at line {self.line}"

    def get(self, key, default, kind=int):
        """Option `key` converted by `kind`, or `default` when the section does not set it."""
        if key not in self.options:
            return default
        try:
            return kind(self.options[key])
        except ValueError:
            raise ConversionError(f"{self.where()}: {key}={self.options[key]} is not {kind.__name__}") from None

    def numbers(self, key, kind=int):
        """Option `key` as a comma-separated list converted by `kind` (empty when unset)."""
        text = self.options.get(key, "")
        try:
            return [kind(v) for v in text.split(",") if v]
        except ValueError:
            raise ConversionError(f"{self.where()}: {key}={text} is not a list of {kind.__name__}") from None

    def fail(self, message):
        raise ConversionError(f"{self.where()}: {message}")

    def require(self, condition, message):
        if not condition:
            self.fail(message)


def read_cfg(path):
    """The [net] section and the layer sections of a Darknet .cfg, in order.

    As Darknet's own parser does, every whitespace character is dropped from each line, and lines
    starting with # or ; are comments."""
    sections = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, raw in enumerate(f, 1):
            line = "".join(raw.split())
            if not line or line[0] in "#;":
                continue
            if line[0] == "[":
                if not line.endswith("]") or len(line) < 3:
                    raise ConversionError(f"{path}: line {number}: malformed section header {line}")
                sections.append(Section(line[1:-1], number))
                continue
            key, equals, value = line.partition("=")
            if not sections or not equals or not key:
                raise ConversionError(f"{path}: line {number}: expected key=value inside a section, not {line}")
            sections[-1].options[key] = value
    if not sections or sections[0].kind != "net":
        raise ConversionError(f"{path}: the first section must be [net]")
    return sections[0], sections[1:]


def _yolo_head(section, previous_channels=None):
    """The decoding parameters of a [yolo] section: anchors (w, h in network pixels) of its mask,
    scale_x_y and classes. With `previous_channels`, checks that the layer feeding it has one
    (box, objectness, classes) group of channels per anchor."""
    classes = section.get("classes", 20)
    anchors = section.numbers("anchors", float)
    count = section.get("num", len(anchors) // 2)
    mask = section.numbers("mask") or list(range(count))
    scale_xy = section.get("scale_x_y", 1.0, float)
    section.require(classes >= 1, f"classes={classes} must be at least 1")
    section.require(len(anchors) == 2 * count and count >= 1, f"num={count} needs {2 * count} anchor numbers, not {len(anchors)}")
    section.require(all(0 <= m < count for m in mask), f"mask {mask} refers to anchors beyond num={count}")
    section.require(all(a > 0 for a in anchors), "anchors must be positive")
    section.require(scale_xy >= 1, f"scale_x_y={scale_xy} is below 1")
    section.require(section.get("new_coords", 0) == 0, "new_coords=1 (Scaled-YOLOv4 decoding) is not supported")
    if previous_channels is not None:
        section.require(previous_channels == len(mask) * (5 + classes),
                        f"its input has {previous_channels} channels, not {len(mask)} anchors x (5 + {classes} classes)")

    def number(v):
        return int(v) if v.is_integer() else v

    return {"anchors": [[number(anchors[2 * m]), number(anchors[2 * m + 1])] for m in mask],
            "scale_x_y": scale_xy, "classes": classes}


def yolo_decode_spec(cfg_path):
    """For each [yolo] layer of the .cfg, in order (the model's outputs yolo_0, yolo_1, ...), a dict
    with `anchors` ([w, h] pairs in network pixels, those of its mask, in the order of the output's
    anchor channel groups), `scale_x_y` and `classes`."""
    _, layers = read_cfg(cfg_path)
    heads = [_yolo_head(s) for s in layers if s.kind == "yolo"]
    if not heads:
        raise ConversionError(f"{cfg_path}: no [yolo] layer")
    return heads


def heads_document(spec):
    """The heads file's JSON object (FocalDetection's YOLOHeads) for a `yolo_decode_spec` list."""
    classes = {head["classes"] for head in spec}
    if len(classes) != 1:
        raise ConversionError(f"the [yolo] layers score different numbers of classes: {sorted(classes)}")
    return {"classes": classes.pop(), "heads": [{"anchors": h["anchors"], "scale_x_y": h["scale_x_y"]} for h in spec]}


# --- The .weights ---------------------------------------------------------------------------------

class Weights:
    """The float32 numbers of a .weights file after its header, taken in order by the layers."""

    def __init__(self, path):
        with open(path, "rb") as f:
            data = f.read()
        if len(data) < 16:
            raise ConversionError(f"{path}: too short for a Darknet weights header")
        major, minor, _revision = struct.unpack_from("<3i", data)
        if major > 1000 or minor > 1000:
            raise ConversionError(f"{path}: transposed weights (version {major}.{minor}) are not supported")
        # `seen` (images trained on) is 64-bit from format 0.2 on, 32-bit before.
        start = 20 if major * 10 + minor >= 2 else 16
        if (len(data) - start) % 4:
            raise ConversionError(f"{path}: {len(data) - start} bytes after the header are not whole float32 numbers")
        self.path = path
        self.values = array("f")
        self.values.frombytes(data[start:])
        if sys.byteorder == "big":
            self.values.byteswap()
        self.used = 0

    def take(self, count):
        """The next `count` numbers."""
        if self.used + count > len(self.values):
            raise ConversionError(f"{self.path}: ends after {len(self.values)} numbers; the .cfg needs more")
        chunk = self.values[self.used:self.used + count]
        self.used += count
        return chunk

    def finish(self):
        left = len(self.values) - self.used
        if left:
            raise ConversionError(f"{self.path}: {left} numbers are left over; the .cfg does not describe this file")


def fold_batch_norm(weights, beta, gamma, mean, variance, filters):
    """Conv weights and bias with batch normalisation folded in:
    w' = w * gamma / sqrt(var + eps) per output channel, b' = beta - mean * gamma / sqrt(var + eps)."""
    per_filter = len(weights) // filters
    folded, bias = array("f"), array("f")
    for o in range(filters):
        if not variance[o] + BN_EPSILON > 0:
            raise ConversionError(f"batch normalisation variance {variance[o]} of filter {o} is not positive")
        factor = gamma[o] / math.sqrt(variance[o] + BN_EPSILON)
        folded.extend(map(factor.__mul__, weights[o * per_filter:(o + 1) * per_filter]))
        bias.append(beta[o] - mean[o] * factor)
    return folded, bias


# --- ONNX, as protobuf bytes ----------------------------------------------------------------------

class Graph:
    """The nodes and initializers of the ONNX graph being built, as encoded messages."""

    def __init__(self):
        self.nodes = []
        self.initializers = []
        self.parameters = 0

    def constant(self, name, dims, values, data_type=FLOAT):
        """Adds an initializer; `values` is an array('f') or a list of ints (INT64)."""
        if data_type == FLOAT:
            data = array("f", values)
            if sys.byteorder == "big":
                data.byteswap()
            raw = data.tobytes()
            self.parameters += len(data)
        else:
            raw = struct.pack(f"<{len(values)}q", *values)
        self.initializers.append(tensor(name, dims, data_type, raw))
        return name

    def node(self, op, inputs, output, **attributes):
        """Adds a node named after its one output; returns the output's name."""
        self.nodes.append(node(op, inputs, output, **attributes))
        return output

    def model(self, inputs, outputs, doc):
        """The ModelProto bytes: ir_version 1, opset_import 8, producer 2 and 3, graph 7, doc 6.
        `inputs` and `outputs` are (name, dims) pairs."""
        graph = b"".join([*(bytes_field(1, n) for n in self.nodes), string_field(2, "darknet"),
                          *(bytes_field(5, t) for t in self.initializers),
                          *(bytes_field(11, value_info(*i)) for i in inputs),
                          *(bytes_field(12, value_info(*o)) for o in outputs)])
        return b"".join([int_field(1, IR_VERSION), bytes_field(8, int_field(2, OPSET)),
                         string_field(2, "focalscripts.darknet_onnx"), string_field(3, "1"),
                         string_field(6, doc), bytes_field(7, graph)])


# --- The conversion -------------------------------------------------------------------------------

class Converter:
    """Walks the layers of a .cfg, taking their weights in order, and builds the graph.

    `outputs[i]` is (tensor name, channels) of Darknet layer i (None for a [yolo] layer)."""

    def __init__(self, net, layers, weights):
        self.layers = layers
        self.weights = weights
        self.graph = Graph()
        self.outputs = []
        channels = net.get("channels", 3)
        net.require(channels == 3, f"channels={channels}: the input must be an RGB image")
        self.outputs_by_layer = {}  # layer index feeding a [yolo] layer -> the model output's name
        for index, section in enumerate(layers):
            if section.kind == "yolo":
                section.require(index > 0 and index - 1 not in self.outputs_by_layer and layers[index - 1].kind != "yolo",
                                "must follow a layer other than [yolo]")
                self.outputs_by_layer[index - 1] = f"yolo_{len(self.outputs_by_layer)}"
        if not self.outputs_by_layer:
            raise ConversionError("the .cfg has no [yolo] layer")
        self.heads = []  # (output name, channels, decode spec) in order

    def convert(self):
        """The ModelProto bytes."""
        for index, section in enumerate(self.layers):
            if section.kind in OPTIONS:
                unknown = sorted(set(section.options) - OPTIONS[section.kind])
                section.require(not unknown, f"option {', '.join(unknown)} is not supported")
            build = getattr(self, f"_{section.kind}", None)
            if build is None:
                section.fail("this kind of layer is not supported (convolutional, maxpool, route, upsample and yolo are)")
            self.outputs.append(build(index, section, *self._input(index, section)))
        self.weights.finish()
        outputs = [(name, [1, channels, f"{name}_height", f"{name}_width"]) for name, channels, _ in self.heads]
        doc = (f"Converted from Darknet by focalscripts.darknet_onnx. Input image: RGB 0..1, NCHW. "
               f"Outputs: the raw maps feeding each [yolo] layer; heads: {json.dumps([h for _, _, h in self.heads])}")
        return self.graph.model([("image", [1, 3, "height", "width"])], outputs, doc)

    def _input(self, index, section):
        """The previous layer's (tensor, channels): the network input for the first layer."""
        if index == 0:
            return "image", 3
        previous = self.outputs[index - 1]
        section.require(previous is not None or section.kind == "route", "cannot follow a [yolo] layer")
        return previous or (None, 0)

    def _name(self, index, kind):
        """The tensor name of layer `index`'s result: the model output's when it feeds [yolo]."""
        return self.outputs_by_layer.get(index, f"{kind}_{index}")

    def _convolutional(self, index, section, source, channels):
        filters = section.get("filters", 1)
        size = section.get("size", 1)
        stride = section.get("stride", 1)
        padding = size // 2 if section.get("pad", 0) else section.get("padding", 0)
        groups = section.get("groups", 1)
        normalize = section.get("batch_normalize", 0)
        activation = section.get("activation", "logistic", str)  # Darknet's default
        section.require(filters >= 1 and size >= 1 and stride >= 1 and padding >= 0, "filters, size and stride must be positive")
        section.require(section.get("stride_x", stride) == stride and section.get("stride_y", stride) == stride,
                        "stride_x or stride_y different from stride is not supported")
        section.require(section.get("dilation", 1) == 1, "dilation is not supported")
        section.require(groups >= 1 and channels % groups == 0 and filters % groups == 0,
                        f"groups={groups} does not divide {channels} input channels and {filters} filters")
        section.require(normalize in (0, 1), f"batch_normalize={normalize} is not 0 or 1")
        section.require(activation in ACTIVATIONS, f"activation={activation} is not supported ({' and '.join(ACTIVATIONS)} are)")
        # Darknet's order: biases (beta), then scales (gamma), rolling mean and variance when
        # normalised, then the weights [filters, channels / groups, size, size].
        beta = self.weights.take(filters)
        if normalize:
            gamma, mean, variance = self.weights.take(filters), self.weights.take(filters), self.weights.take(filters)
        kernel = self.weights.take(filters * channels // groups * size * size)
        if normalize:
            try:
                kernel, bias = fold_batch_norm(kernel, beta, gamma, mean, variance, filters)
            except ConversionError as e:
                section.fail(str(e))
        else:
            bias = beta
        w = self.graph.constant(f"conv_{index}.weight", [filters, channels // groups, size, size], kernel)
        b = self.graph.constant(f"conv_{index}.bias", [filters], bias)
        attributes = dict(kernel_shape=[size, size], strides=[stride, stride], pads=[padding] * 4, dilations=[1, 1])
        if groups > 1:
            attributes["group"] = groups
        if activation == "linear":
            return self.graph.node("Conv", [source, w, b], self._name(index, "conv"), **attributes), filters
        out = self.graph.node("Conv", [source, w, b], f"conv_{index}", **attributes)
        return self.graph.node("LeakyRelu", [out], self._name(index, "leaky"), alpha=LEAKY_SLOPE), filters

    def _maxpool(self, index, section, source, channels):
        stride = section.get("stride", 1)
        size = section.get("size", stride)
        padding = section.get("padding", size - 1)
        section.require(size >= 1 and stride >= 1 and padding >= 0, "size and stride must be positive")
        section.require(section.get("stride_x", stride) == stride and section.get("stride_y", stride) == stride,
                        "stride_x or stride_y different from stride is not supported")
        # Darknet starts the window padding/2 before the first pixel (the rest of the padding is
        # after the last) and outputs (side + padding - size) / stride + 1 pixels, as ONNX does
        # with these pads; padded pixels never win.
        before = padding // 2
        out = self.graph.node("MaxPool", [source], self._name(index, "maxpool"), kernel_shape=[size, size],
                              strides=[stride, stride], pads=[before, before, padding - before, padding - before])
        return out, channels

    def _upsample(self, index, section, source, channels):
        stride = section.get("stride", 2)
        section.require(stride >= 1, f"stride={stride}: only upsampling (a positive stride) is supported")
        section.require(section.get("scale", 1.0, float) == 1.0, "scale (multiplying the values) is not supported")
        scales = self.graph.constant(f"upsample_{index}.scales", [4], [1.0, 1.0, float(stride), float(stride)])
        out = self.graph.node("Resize", [source, "", scales], self._name(index, "upsample"), mode="nearest",
                              coordinate_transformation_mode="asymmetric", nearest_mode="floor")
        return out, channels

    def _route(self, index, section, _source, _channels):
        groups = section.get("groups", 1)
        group = section.get("group_id", 0)
        section.require(groups >= 1 and 0 <= group < groups, f"group_id={group} is not below groups={groups}")
        given = section.numbers("layers")
        section.require(given, "layers is missing")
        parts, total = [], 0
        for number in given:
            layer = number if number >= 0 else index + number  # negative: counted back from this layer
            section.require(0 <= layer < index, f"layers={number}: layer {layer} is not an earlier layer")
            section.require(self.outputs[layer] is not None, f"layer {layer} is a [yolo] layer")
            name, channels = self.outputs[layer]
            section.require(channels % groups == 0, f"groups={groups} does not divide the {channels} channels of layer {layer}")
            width = channels // groups
            if groups > 1:
                prefix = f"route_{index}.{len(parts)}"
                starts = self.graph.constant(f"{prefix}.starts", [1], [group * width], INT64)
                ends = self.graph.constant(f"{prefix}.ends", [1], [(group + 1) * width], INT64)
                axes = self.graph.constant(f"{prefix}.axes", [1], [1], INT64)
                name = self.graph.node("Slice", [name, starts, ends, axes], prefix if len(given) > 1 else self._name(index, "route"))
            parts.append(name)
            total += width
        if len(parts) > 1:
            return self.graph.node("Concat", parts, self._name(index, "route"), axis=1), total
        if index in self.outputs_by_layer and parts[0] != self.outputs_by_layer[index]:
            return self.graph.node("Identity", parts, self.outputs_by_layer[index]), total
        return parts[0], total

    def _yolo(self, index, section, source, channels):
        self.heads.append((source, channels, _yolo_head(section, channels)))
        return None


def convert(cfg_path, weights_path):
    """The ONNX model bytes for a Darknet .cfg and .weights, and a summary dict (layers,
    parameters, heads: the `yolo_decode_spec` list)."""
    net, layers = read_cfg(cfg_path)
    converter = Converter(net, layers, Weights(weights_path))
    model = converter.convert()
    return model, {"layers": len(layers), "parameters": converter.graph.parameters,
                   "heads": [spec for _, _, spec in converter.heads]}


def write_atomically(path, data):
    """Writes `data` to `path` through a temporary file beside it, renamed over it when complete."""
    temporary = f"{path}.part-{os.getpid()}"
    try:
        with open(temporary, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.remove(temporary)
        raise


def heads_path(model_path):
    """Where the heads file of a model goes: beside it, `NAME.heads.json` for `NAME.onnx`."""
    stem = model_path[:-len(".onnx")] if model_path.endswith(".onnx") else model_path
    return stem + ".heads.json"


def main():
    parser = argparse.ArgumentParser(prog=prog(__spec__), description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--heads", action="store_true", help="print the [yolo] heads of CFG as JSON, convert nothing")
    parser.add_argument("cfg", metavar="CFG", help="the Darknet network description")
    parser.add_argument("weights", nargs="?", metavar="WEIGHTS", help="the Darknet weights")
    parser.add_argument("out", nargs="?", metavar="OUT.onnx", help="the ONNX model to write (and OUT.heads.json beside it)")
    args = parser.parse_args()
    if args.heads and args.weights:
        parser.error("--heads takes CFG alone")
    if not args.heads and not args.out:
        parser.error("CFG, WEIGHTS and OUT.onnx are needed")
    try:
        if args.heads:
            print(json.dumps(heads_document(yolo_decode_spec(args.cfg))))
            return
        started = time.monotonic()
        model, summary = convert(args.cfg, args.weights)
        heads = json.dumps(heads_document(summary["heads"])) + "\n"
        write_atomically(args.out, model)
        write_atomically(heads_path(args.out), heads.encode())
    except (ConversionError, OSError) as e:
        sys.exit(f"darknet_onnx: {e}")
    print(f"darknet_onnx: {args.out}: {summary['layers']} layers, {summary['parameters']} parameters, "
          f"{len(summary['heads'])} heads, {len(model) / 1e6:.1f} MB in {time.monotonic() - started:.1f} s")


if __name__ == "__main__":
    main()
