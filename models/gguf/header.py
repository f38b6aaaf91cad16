"""Read a GGUF file's header (metadata and tensor table) without loading weights or the tokenizer.

Why not gguf-py's GGUFReader: it parses every element of the tokenizer arrays into Python objects
(17 s and 650 MiB for a Llama 3 vocabulary). Here large arrays are skipped by length: numeric arrays
in one jump, string arrays by walking only their length prefixes. Small numeric arrays (per-layer head
counts, sliding-window patterns) are kept, because the memory plan needs them.

Every count and length is checked against the bytes that remain before it is used, so a truncated
or hostile file raises ``GGUFError`` with a plain message instead of crashing, hanging or allocating
gigabytes. Format reference: ggml/docs/gguf.md and gguf-py/gguf/constants.py in llama.cpp.
"""
from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from precis.models.gguf.ggml_types import GGML_TYPES, tensor_nbytes

GGUF_MAGIC = b"GGUF"
SUPPORTED_VERSIONS = (2, 3)
DEFAULT_ALIGNMENT = 32

# Arrays up to this many elements are kept as Python values; longer ones keep only their length.
KEPT_ARRAY_MAX_ITEMS = 4096
# Limits far above any real model, to reject absurd headers before looping over them.
MAX_KV_COUNT = 1_000_000
MAX_TENSOR_COUNT = 10_000_000
MAX_TENSOR_DIMS = 8

# GGUF value type id -> (struct format, size in bytes); 8 = string and 9 = array are handled apart.
_SCALARS: dict[int, tuple[str, int]] = {
    0: ("<B", 1), 1: ("<b", 1), 2: ("<H", 2), 3: ("<h", 2), 4: ("<I", 4), 5: ("<i", 4),
    6: ("<f", 4), 7: ("<?", 1), 10: ("<Q", 8), 11: ("<q", 8), 12: ("<d", 8),
}
_STRING, _ARRAY = 8, 9


class GGUFError(ValueError):
    """The file is not a GGUF model Precis can read; the message says why, for a person."""


@dataclass(frozen=True)
class SkippedArray:
    """A metadata array too long to keep (e.g. the tokenizer's tokens): its type and length only."""
    item_type: int
    count: int


@dataclass(frozen=True)
class TensorInfo:
    name: str
    shape: tuple[int, ...]
    ggml_type: int
    offset_bytes: int

    @property
    def nbytes(self) -> int:
        return tensor_nbytes(self.ggml_type, self.shape)


@dataclass
class GGUFHeader:
    path: Path
    version: int
    file_bytes: int
    metadata: dict[str, Any] = field(default_factory=dict)
    tensors: list[TensorInfo] = field(default_factory=list)
    data_offset_bytes: int = 0

    @property
    def tensor_bytes(self) -> int:
        return sum(t.nbytes for t in self.tensors)


class _Cursor:
    def __init__(self, buf: mmap.mmap | bytes, path: Path) -> None:
        self.buf = buf
        self.pos = 0
        self.end = len(buf)
        self.path = path

    def need(self, nbytes: int, what: str) -> None:
        if nbytes < 0 or self.pos + nbytes > self.end:
            raise GGUFError(
                f"{self.path.name}: the file ends inside its header (needed {nbytes} bytes for {what} at "
                f"byte {self.pos}, file has {self.end}). It is truncated or still downloading; "
                "download it again.")

    def scalar(self, type_id: int, what: str) -> Any:
        fmt, size = _SCALARS[type_id]
        self.need(size, what)
        (value,) = struct.unpack_from(fmt, self.buf, self.pos)
        self.pos += size
        return value

    def u32(self, what: str) -> int:
        return self.scalar(4, what)

    def u64(self, what: str) -> int:
        return self.scalar(10, what)

    def string(self, what: str) -> str:
        length = self.u64(f"length of {what}")
        self.need(length, what)
        raw = bytes(self.buf[self.pos:self.pos + length])
        self.pos += length
        return raw.decode("utf-8", errors="replace")

    def skip_string(self, what: str) -> None:
        length = self.u64(f"length of {what}")
        self.need(length, what)
        self.pos += length


def _read_value(cur: _Cursor, type_id: int, key: str) -> Any:
    if type_id in _SCALARS:
        return cur.scalar(type_id, key)
    if type_id == _STRING:
        return cur.string(key)
    if type_id != _ARRAY:
        raise GGUFError(f"{cur.path.name}: metadata key {key!r} has unknown value type {type_id}; "
                        "the file is corrupt or from a newer GGUF revision.")
    item_type = cur.u32(f"array type of {key}")
    count = cur.u64(f"array length of {key}")
    if item_type in _SCALARS:
        _, size = _SCALARS[item_type]
        cur.need(count * size, f"array {key}")
        if count <= KEPT_ARRAY_MAX_ITEMS:
            fmt = "<" + _SCALARS[item_type][0][1] * count
            values = list(struct.unpack_from(fmt, cur.buf, cur.pos))
            cur.pos += count * size
            return values
        cur.pos += count * size
        return SkippedArray(item_type, count)
    if item_type == _STRING:
        # Each string takes at least its 8-byte length prefix: reject impossible counts before looping.
        cur.need(count * 8, f"array {key}")
        for _ in range(count):
            cur.skip_string(f"an element of {key}")
        return SkippedArray(item_type, count)
    raise GGUFError(f"{cur.path.name}: metadata array {key!r} holds type {item_type}, which GGUF does "
                    "not allow here; the file is corrupt.")


def read_gguf_header(path: str | Path) -> GGUFHeader:
    """Parse the header of the GGUF at ``path``. Raises GGUFError (or OSError for I/O failures)."""
    path = Path(path)
    if path.is_dir():
        raise GGUFError(f"{path}: is a folder, not a GGUF model file.")
    file_bytes = path.stat().st_size
    if file_bytes < 24:
        raise GGUFError(f"{path.name}: only {file_bytes} bytes; a GGUF model starts with a 24-byte "
                        "header. The file is empty or truncated.")
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as buf:
        return _parse(buf, path, file_bytes)


def _parse(buf: mmap.mmap, path: Path, file_bytes: int) -> GGUFHeader:
    cur = _Cursor(buf, path)
    magic = bytes(buf[0:4])
    if magic != GGUF_MAGIC:
        hint = " It looks like a PyTorch/safetensors file; convert it to GGUF first." if magic[:2] == b"PK" \
            or magic[:1] == b"{" else ""
        raise GGUFError(f"{path.name}: not a GGUF model (starts with {magic!r}, expected b'GGUF').{hint}")
    cur.pos = 4
    version = cur.u32("version")
    if version not in SUPPORTED_VERSIONS:
        raise GGUFError(f"{path.name}: GGUF version {version} is not supported (Precis reads versions "
                        f"{', '.join(map(str, SUPPORTED_VERSIONS))}). Re-convert the model with a current llama.cpp.")
    tensor_count = cur.u64("tensor count")
    kv_count = cur.u64("metadata count")
    if kv_count > MAX_KV_COUNT or tensor_count > MAX_TENSOR_COUNT:
        raise GGUFError(f"{path.name}: header claims {kv_count} metadata keys and {tensor_count} tensors, "
                        "which no real model has; the file is corrupt.")
    header = GGUFHeader(path=path, version=version, file_bytes=file_bytes)
    for i in range(kv_count):
        key = cur.string(f"metadata key #{i}")
        type_id = cur.u32(f"value type of {key}")
        header.metadata[key] = _read_value(cur, type_id, key)
    for i in range(tensor_count):
        name = cur.string(f"tensor name #{i}")
        n_dims = cur.u32(f"dimension count of tensor {name}")
        if not 1 <= n_dims <= MAX_TENSOR_DIMS:
            raise GGUFError(f"{path.name}: tensor {name!r} claims {n_dims} dimensions; the file is corrupt.")
        cur.need(8 * n_dims, f"shape of tensor {name}")
        shape = struct.unpack_from(f"<{n_dims}Q", buf, cur.pos)
        cur.pos += 8 * n_dims
        ggml_type = cur.u32(f"type of tensor {name}")
        if ggml_type not in GGML_TYPES:
            raise GGUFError(f"{path.name}: tensor {name!r} uses ggml type {ggml_type}, unknown to this "
                            "version of Precis; the model may need a newer llama.cpp.")
        offset = cur.u64(f"offset of tensor {name}")
        header.tensors.append(TensorInfo(name, tuple(shape), ggml_type, offset))
    alignment = header.metadata.get("general.alignment", DEFAULT_ALIGNMENT)
    if not isinstance(alignment, int) or alignment <= 0 or alignment & (alignment - 1):
        raise GGUFError(f"{path.name}: general.alignment is {alignment!r}, not a power of two; corrupt file.")
    header.data_offset_bytes = -(-cur.pos // alignment) * alignment
    _check_tensor_data_present(header)
    return header


def _check_tensor_data_present(header: GGUFHeader) -> None:
    """A download that stopped early keeps a valid header; the missing weights show up here."""
    if not header.tensors:
        return
    last = max(header.tensors, key=lambda t: t.offset_bytes)
    needed = header.data_offset_bytes + last.offset_bytes + last.nbytes
    if needed > header.file_bytes:
        missing_mib = (needed - header.file_bytes) / 2**20
        raise GGUFError(f"{header.path.name}: the weights are incomplete ({missing_mib:.1f} MiB missing at the "
                        "end). The download was interrupted or the file was cut; download it again.")
