"""BERT encoder graphs written operator by operator with the onnx helper API (opset 17, no torch).

The one graph builder of the repository, used by scripts/models/make_tiny_models.py (the random-weight
test models in fixtures/models/) and bench/models/prepare.py (the real-weights MiniLM benchmark models):
word + token-type + position embeddings, LayerNormalization, post-LN encoder layers of multi-head
self-attention with the additive mask (1 - mask) * -10000 and an exact-erf GELU feed-forward, then a
head: the BERT pooler (dense + tanh on [CLS]) with a linear classifier, the pooler alone, or none
(last_hidden_state).

Weights are a dict of numpy arrays named like the Hugging Face checkpoint with a "bert." prefix
("bert.encoder.layer.0.attention.self.query.weight", ..., "classifier.weight"); Linear weights are
stored [in, out] (x @ W + b), as torch.onnx export stores the MatMul initializers.

Two op patterns (`style`), each kept because files depend on it byte for byte:
  "torch-export"  the op order of a torch.onnx export of BertModel: two Unsqueezes for the mask,
                  scores Div sqrt(head_dim), the last LayerNorm writes last_hidden_state. The benchmark
                  models use it, so onnxruntime's graph fusions see what they see in a real export.
  "compact"       the pattern the committed tiny test models were written with: one Unsqueeze, scores
                  Mul 1/sqrt(head_dim), an Identity for last_hidden_state, the embedding tables stored
                  first. Same maths; kept so that regenerating fixtures/models/ gives identical files.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
IR_VERSION = 8  # the IR version that goes with opset 17; loads in onnxruntime >= 1.13
MASK_NEG = -10000.0
STYLES = ("torch-export", "compact")
HEADS = ("classifier", "pooler", "embedder")


@dataclass(frozen=True)
class BertShape:
    hidden: int
    layers: int
    heads: int
    eps: float
    head: str = "embedder"  # "classifier": logits [B, labels]; "pooler": pooled [B, H]; "embedder": last_hidden_state
    labels: int = 1
    token_type_input: bool = True  # False: no token_type_ids input, every token has type 0
    style: str = "torch-export"

    def __post_init__(self):
        if self.head not in HEADS:
            raise ValueError(f"head {self.head!r}: one of {HEADS}")
        if self.style not in STYLES:
            raise ValueError(f"style {self.style!r}: one of {STYLES}")
        if self.hidden % self.heads:
            raise ValueError(f"hidden {self.hidden} is not a multiple of heads {self.heads}")


class GraphBuilder:
    """Nodes and initializers of one graph; generated tensor names are numbered in creation order."""

    def __init__(self):
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self._seen: set[str] = set()
        self._n = 0

    def name(self, hint: str) -> str:
        self._n += 1
        return f"/{hint}_{self._n}"

    def const(self, value, name: str | None = None, dtype=np.float32) -> str:
        """An initializer; a named one is stored once however often it is asked for."""
        nm = name or self.name("const")
        if nm not in self._seen:
            self._seen.add(nm)
            self.inits.append(numpy_helper.from_array(np.asarray(value, dtype=dtype), nm))
        return nm

    def weight(self, w: dict, name: str) -> str:
        return self.const(w[name], name)

    def op(self, op_type: str, inputs: list[str], hint: str | None = None, out: str | None = None, **attrs) -> str:
        o = out or self.name(hint or op_type)
        self.nodes.append(helper.make_node(op_type, inputs, [o], name=o.lstrip("/") + "_node", **attrs))
        return o

    def linear(self, x: str, w: dict, prefix: str, out: str | None = None) -> str:
        mm = self.op("MatMul", [x, self.weight(w, prefix + ".weight")], prefix + "/MatMul")
        return self.op("Add", [mm, self.weight(w, prefix + ".bias")], prefix + "/Add", out=out)

    def layer_norm(self, x: str, w: dict, prefix: str, eps: float, out: str | None = None) -> str:
        return self.op("LayerNormalization", [x, self.weight(w, prefix + ".weight"), self.weight(w, prefix + ".bias")],
                       prefix, out=out, axis=-1, epsilon=eps)

    def gelu(self, x: str, hint: str) -> str:
        # exact GELU, 0.5 * x * (1 + erf(x / sqrt(2))), in the op order of a torch export
        div = self.op("Div", [x, self.const(math.sqrt(2.0))], hint + "/Div")
        erf = self.op("Erf", [div], hint + "/Erf")
        one = self.op("Add", [erf, self.const(1.0)], hint + "/Add")
        mul = self.op("Mul", [x, one], hint + "/Mul")
        return self.op("Mul", [mul, self.const(0.5)], hint + "/Mul_half")


def _embeddings(g: GraphBuilder, s: BertShape, w: dict) -> str:
    e = "bert.embeddings"
    table = {n: f"{e}.{n}_embeddings.weight" for n in ("word", "position", "token_type")}
    torch = s.style == "torch-export"
    if not torch:
        for n in ("word", "position", "token_type"):
            g.weight(w, table[n])

    def token_types() -> str:
        ids = "token_type_ids" if s.token_type_input else g.const(0, dtype=np.int64)  # no input: type 0 everywhere
        return g.op("Gather", [g.weight(w, table["token_type"]), ids], "embeddings/token_type", axis=0)

    words = g.op("Gather", [g.weight(w, table["word"]), "input_ids"], "embeddings/word", axis=0)
    types = token_types() if torch else None
    shape = g.op("Shape", ["input_ids"], "embeddings/Shape")
    seq_len = g.op("Gather", [shape, g.const(1, dtype=np.int64)], "embeddings/seq_len", axis=0)
    pos_ids = g.op("Range", [g.const(0, dtype=np.int64), seq_len, g.const(1, dtype=np.int64)], "embeddings/position_ids")
    pos = g.op("Gather", [g.weight(w, table["position"]), pos_ids], "embeddings/position", axis=0)
    if not torch:
        types = token_types()
    x = g.op("Add", [g.op("Add", [words, types], "embeddings/Add"), pos], "embeddings/Add_pos")
    return g.layer_norm(x, w, e + ".LayerNorm", s.eps)


def _additive_mask(g: GraphBuilder, s: BertShape) -> str:
    """[B, 1, 1, S]: 0 where attention_mask is 1, -10000 where it is 0."""
    if s.style == "torch-export":
        m = g.op("Unsqueeze", ["attention_mask", g.const([1], dtype=np.int64)], "mask/Unsqueeze")
        m = g.op("Unsqueeze", [m, g.const([2], dtype=np.int64)], "mask/Unsqueeze_1")
    else:
        m = g.op("Unsqueeze", ["attention_mask", g.const([1, 2], dtype=np.int64)], "mask/Unsqueeze")
    m = g.op("Cast", [m], "mask/Cast", to=TensorProto.FLOAT)
    m = g.op("Sub", [g.const(1.0), m], "mask/Sub")
    return g.op("Mul", [m, g.const(MASK_NEG)], "mask/Mul")


def bert_graph(s: BertShape, w: dict, *, producer: str, doc: str) -> onnx.ModelProto:
    """The checked (onnx.checker, full) model of shape `s` with weights `w`."""
    H, NH = s.hidden, s.heads
    D = H // NH
    torch = s.style == "torch-export"
    g = GraphBuilder()
    dims = ["batch_size", "sequence_length"]
    names = ["input_ids", "attention_mask"] + (["token_type_ids"] if s.token_type_input else [])
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, dims) for n in names]

    x = _embeddings(g, s, w)
    mask_add = _additive_mask(g, s)
    if torch:
        split_shape = g.const([0, 0, NH, D], "split_heads_shape", dtype=np.int64)
        merge_shape = g.const([0, 0, H], "merge_heads_shape", dtype=np.int64)
        scale = ("Div", g.const(math.sqrt(D), "sqrt_head_dim"), "/Div", "/AddMask")
    else:
        split_shape = g.const([0, 0, NH, D], dtype=np.int64)
        merge_shape = g.const([0, 0, H], dtype=np.int64)
        scale = ("Mul", g.const(1.0 / math.sqrt(D)), "/scale", "/mask")
    scale_op, scale_const, scale_hint, mask_hint = scale

    def heads(t: str, perm: list[int], hint: str) -> str:
        r = g.op("Reshape", [t, split_shape], hint + "/Reshape")
        return g.op("Transpose", [r], hint + "/Transpose", perm=perm)

    for i in range(s.layers):
        p = f"bert.encoder.layer.{i}"
        a = f"{p}.attention.self"
        q = heads(g.linear(x, w, a + ".query"), [0, 2, 1, 3], a + "/q")  # [B, NH, S, D]
        k = heads(g.linear(x, w, a + ".key"), [0, 2, 3, 1], a + "/k")    # [B, NH, D, S]
        v = heads(g.linear(x, w, a + ".value"), [0, 2, 1, 3], a + "/v")  # [B, NH, S, D]
        scores = g.op(scale_op, [g.op("MatMul", [q, k], a + "/QK"), scale_const], a + scale_hint)
        scores = g.op("Add", [scores, mask_add], a + mask_hint)
        probs = g.op("Softmax", [scores], a + "/Softmax", axis=-1)
        ctx = g.op("Transpose", [g.op("MatMul", [probs, v], a + "/PV")], a + "/ctx/Transpose", perm=[0, 2, 1, 3])
        ctx = g.op("Reshape", [ctx, merge_shape], a + "/ctx/Reshape")
        attn = g.linear(ctx, w, f"{p}.attention.output.dense")
        x = g.layer_norm(g.op("Add", [attn, x], f"{p}.attention.output/residual"), w,
                         f"{p}.attention.output.LayerNorm", s.eps)
        h = g.gelu(g.linear(x, w, f"{p}.intermediate.dense"), f"{p}.intermediate/gelu")
        h = g.linear(h, w, f"{p}.output.dense")
        last = torch and s.head == "embedder" and i == s.layers - 1
        x = g.layer_norm(g.op("Add", [h, x], f"{p}.output/residual"), w, f"{p}.output.LayerNorm", s.eps,
                         out="last_hidden_state" if last else None)

    if s.head == "embedder":
        if not torch:
            g.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="last_hidden_state_node"))
        outputs = [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, dims + [H])]
    else:
        cls = g.op("Gather", [x, g.const(0, dtype=np.int64)], "pooler/cls", axis=1)  # [B, H]
        pooled = g.op("Tanh", [g.linear(cls, w, "bert.pooler.dense")], "pooler/Tanh",
                      out="pooled" if s.head == "pooler" else None)
        if s.head == "classifier":
            g.linear(pooled, w, "classifier", out="logits")
            outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch_size", s.labels])]
        else:
            outputs = [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["batch_size", H])]

    graph = helper.make_graph(g.nodes, "main_graph", inputs, outputs, initializer=g.inits)
    mp = helper.make_model(graph, producer_name=producer, producer_version="1",
                           opset_imports=[helper.make_opsetid("", OPSET)], ir_version=IR_VERSION)
    mp.doc_string = doc
    onnx.checker.check_model(mp, full_check=True)
    return mp
