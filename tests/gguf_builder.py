"""Write synthetic GGUF files for tests and benchmarks: a real header, and weights that are either
zero bytes written or a sparse hole, so a "multi-GB" model costs no disk."""
from __future__ import annotations

import struct
from pathlib import Path

from precis.models.gguf.ggml_types import GGML_TYPES, tensor_nbytes

_INT_TYPES = {"u8": (0, "B"), "i8": (1, "b"), "u16": (2, "H"), "i16": (3, "h"), "u32": (4, "I"), "i32": (5, "i"),
              "f32": (6, "f"), "bool": (7, "?"), "u64": (10, "Q"), "i64": (11, "q"), "f64": (12, "d")}


def _string(s: str) -> bytes:
    raw = s.encode()
    return struct.pack("<Q", len(raw)) + raw


def _value(value) -> tuple[int, bytes]:
    if isinstance(value, bool):
        return 7, struct.pack("<?", value)
    if isinstance(value, int):
        return (4, struct.pack("<I", value)) if 0 <= value < 2**32 else (11, struct.pack("<q", value))
    if isinstance(value, float):
        return 6, struct.pack("<f", value)
    if isinstance(value, str):
        return 8, _string(value)
    if isinstance(value, tuple) and len(value) == 2 and value[0] in _INT_TYPES:  # ("u64", 5)
        t, fmt = _INT_TYPES[value[0]]
        return t, struct.pack("<" + fmt, value[1])
    if isinstance(value, list):
        if value and isinstance(value[0], str):
            return 9, struct.pack("<IQ", 8, len(value)) + b"".join(_string(v) for v in value)
        if value and isinstance(value[0], bool):
            return 9, struct.pack("<IQ", 7, len(value)) + struct.pack(f"<{len(value)}?", *value)
        return 9, struct.pack("<IQ", 5, len(value)) + struct.pack(f"<{len(value)}i", *value)
    raise TypeError(f"unsupported metadata value {value!r}")


def build_header(metadata: dict, tensors: list[tuple[str, tuple[int, ...], int]], *, version: int = 3,
                 alignment: int = 32) -> tuple[bytes, int]:
    """(header bytes padded to alignment, total tensor data bytes)."""
    out = bytearray(b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(metadata)))
    for key, value in metadata.items():
        t, payload = _value(value)
        out += _string(key) + struct.pack("<I", t) + payload
    offset = 0
    for name, shape, ggml_type in tensors:
        out += _string(name) + struct.pack("<I", len(shape)) + struct.pack(f"<{len(shape)}Q", *shape)
        out += struct.pack("<IQ", ggml_type, offset)
        nbytes = tensor_nbytes(ggml_type, shape)
        offset += -(-nbytes // alignment) * alignment
    out += b"\0" * (-len(out) % alignment)
    return bytes(out), offset


def write_gguf(path: Path, metadata: dict, tensors: list[tuple[str, tuple[int, ...], int]], *,
               version: int = 3, truncate_data_bytes: int = 0) -> Path:
    header, data_bytes = build_header(metadata, tensors, version=version)
    with open(path, "wb") as fh:
        fh.write(header)
        fh.truncate(len(header) + data_bytes - truncate_data_bytes)  # sparse: no disk used for weights
    return path


def llama_like(arch: str = "llama", *, n_layer: int = 4, n_embd: int = 256, n_head=4, n_head_kv=2,
               n_vocab: int = 1000, ctx: int = 4096, ff: int = 512, extra: dict | None = None,
               tensor_type: int = 1, big_tensor_elems: int = 0) -> tuple[dict, list]:
    """Metadata and tensors shaped like a small transformer of ``arch``."""
    md = {
        "general.architecture": arch, "general.name": f"synthetic {arch}", "general.file_type": 1,
        f"{arch}.block_count": n_layer, f"{arch}.context_length": ctx, f"{arch}.embedding_length": n_embd,
        f"{arch}.feed_forward_length": ff, f"{arch}.attention.head_count": n_head,
        f"{arch}.attention.head_count_kv": n_head_kv,
        "tokenizer.ggml.model": "gpt2", "tokenizer.ggml.tokens": [f"t{i}" for i in range(n_vocab)],
        "tokenizer.chat_template": "{{ messages }}",
    }
    md.update(extra or {})
    tensors = [("token_embd.weight", (n_embd, n_vocab), tensor_type)]
    for il in range(n_layer):
        tensors.append((f"blk.{il}.attn_q.weight", (n_embd, n_embd), tensor_type))
        tensors.append((f"blk.{il}.ffn_up.weight", (n_embd, ff), tensor_type))
    if big_tensor_elems:
        tensors.append(("output.weight", (big_tensor_elems // 256, 256), 12))  # q4_K
    assert all(t in GGML_TYPES for _, _, t in tensors)
    return md, tensors
