"""ONNX's protobuf messages, encoded and decoded by hand: the few fields Focal's model scripts use.

Field numbers are onnx.proto's. Writing: each function returns the encoded bytes of one field or
message. Reading: `fields` walks a message's top-level fields without interpreting them, so that a
script can copy what it does not change byte for byte.
"""
import struct

# TensorProto.DataType and AttributeProto.AttributeType.
FLOAT, UINT8, INT64 = 1, 2, 7
ATTRIBUTE_FLOAT, ATTRIBUTE_INT, ATTRIBUTE_STRING, ATTRIBUTE_INTS = 1, 2, 3, 7

# Protobuf wire types.
VARINT, FIXED64, LENGTH, FIXED32 = 0, 1, 2, 5


class ProtoError(Exception):
    """The bytes are not a well-formed protobuf message."""


# --- Writing --------------------------------------------------------------------------------------

def varint(value):
    value &= (1 << 64) - 1  # a negative int64 is its two's complement, ten bytes
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def int_field(field, value):
    return varint(field << 3) + varint(value)


def bytes_field(field, payload):
    return varint(field << 3 | LENGTH) + varint(len(payload)) + payload


def string_field(field, text):
    return bytes_field(field, text.encode())


def float_field(field, value):
    return varint(field << 3 | FIXED32) + struct.pack("<f", value)


def tensor(name, dims, data_type, raw):
    """TensorProto: dims 1, data_type 2, name 8, raw_data 9."""
    return b"".join([*(int_field(1, d) for d in dims), int_field(2, data_type), string_field(8, name), bytes_field(9, raw)])


def attribute(name, value):
    """AttributeProto: name 1, type 20, f 2, i 3, s 4, ints 8."""
    if isinstance(value, float):
        body = float_field(2, value) + int_field(20, ATTRIBUTE_FLOAT)
    elif isinstance(value, int):
        body = int_field(3, value) + int_field(20, ATTRIBUTE_INT)
    elif isinstance(value, str):
        body = string_field(4, value) + int_field(20, ATTRIBUTE_STRING)
    else:
        body = b"".join(int_field(8, v) for v in value) + int_field(20, ATTRIBUTE_INTS)
    return string_field(1, name) + body


def value_info(name, dims, data_type=FLOAT):
    """ValueInfoProto of a tensor; a dimension is a number or a symbolic name; `dims` None leaves
    the shape out (any rank)."""
    tensor_type = int_field(1, data_type)
    if dims is not None:
        shape = b"".join(bytes_field(1, int_field(1, d) if isinstance(d, int) else string_field(2, d)) for d in dims)
        tensor_type += bytes_field(2, shape)
    return string_field(1, name) + bytes_field(2, bytes_field(1, tensor_type))


def node(op, inputs, output, **attributes):
    """NodeProto with one output, named after it: input 1, output 2, name 3, op_type 4, attribute 5."""
    return b"".join([*(string_field(1, i) for i in inputs), string_field(2, output), string_field(3, output),
                     string_field(4, op), *(bytes_field(5, attribute(k, v)) for k, v in attributes.items())])


# --- Reading --------------------------------------------------------------------------------------

def _read_varint(data, at):
    value = shift = 0
    while True:
        if at >= len(data) or shift > 63:
            raise ProtoError("truncated or overlong varint")
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def fields(data):
    """(field number, wire type, value, encoded bytes of the whole field) for each top-level field
    of `data`, in order: the value is an int for varints, bytes otherwise."""
    at = 0
    while at < len(data):
        start = at
        key, at = _read_varint(data, at)
        number, wire = key >> 3, key & 7
        if wire == VARINT:
            value, at = _read_varint(data, at)
        elif wire == LENGTH:
            size, at = _read_varint(data, at)
            if at + size > len(data):
                raise ProtoError(f"field {number} runs past the end of its message")
            value, at = data[at:at + size], at + size
        elif wire in (FIXED32, FIXED64):
            size = 4 if wire == FIXED32 else 8
            if at + size > len(data):
                raise ProtoError(f"field {number} runs past the end of its message")
            value, at = data[at:at + size], at + size
        else:
            raise ProtoError(f"field {number} has wire type {wire}, which ONNX does not use")
        if number == 0:
            raise ProtoError("field number 0")
        yield number, wire, value, data[start:at]


def string_of(message, number):
    """The first string field `number` of `message`, or None."""
    for n, wire, value, _ in fields(message):
        if n == number and wire == LENGTH:
            return value.decode("utf-8", errors="replace")
    return None
