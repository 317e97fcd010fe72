"""Decoder-only rerankers that answer "yes" or "no" (Qwen3-Reranker), made into the 2-label classifier ragrank's
CrossEncoder runs: the ONNX graph returns the logits of "no" and "yes" at each row's last real token (so
score = logit_yes - logit_no and its sigmoid is the model card's P(yes) = softmax over the two), and the chat prompt
is written into tokenizer.json's pair template, so that truncation cuts only the document and keeps the prompt's end:

    PREFIX = <|im_start|>system ... <|im_start|>user\\n<Instruct>: {instruction}\\n<Query>:
    pair   = PREFIX $query \\n<Document>: $document SUFFIX,   SUFFIX = <|im_end|>\\n<|im_start|>assistant\\n<think>...

Tokens: the model card encodes PREFIX, then the body "<Instruct>: ..\\n<Query>: {query}\\n<Document>: {doc}" as one
string, then SUFFIX. Here the query and the document are encoded apart, with a space prepended to each (a Prepend
normalizer) standing for the one after "<Query>:" and "<Document>:". Qwen's pre-tokenizer splits at every one of
these seams, so the tokens are the same, except where a query ends in punctuation: the body joins "?" and the newline
after it into one pre-token ("?\\n"), this template does not.
"""

import json

import torch

SYSTEM = (
    "<|im_start|>system\nJudge whether the Document meets the requirements based on the Query and the Instruct "
    'provided. Note that the answer can only be "yes" or "no".<|im_end|>\n<|im_start|>user\n'
)
SUFFIX = "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"
INSTRUCTION = "Given a web search query, retrieve relevant passages that answer the query"


def is_yes_no_reranker(config, has_sentence_transformers_files: bool) -> bool:
    """A causal LM that is not a sentence-transformers embedder (Qwen3-Embedding is also a Qwen3ForCausalLM)."""
    causal = any(a.endswith("ForCausalLM") for a in (config.architectures or []))
    return causal and not has_sentence_transformers_files


class YesNoLogits(torch.nn.Module):
    """[batch, 2]: the logits of "no" and "yes" after each row's last unpadded token (rows may be right-padded)."""

    def __init__(self, model, no_id: int, yes_id: int):
        super().__init__()
        self.model = model
        self.head = torch.nn.Parameter(model.lm_head.weight[[no_id, yes_id]].detach().clone())  # 2 rows, not the vocabulary

    def forward(self, input_ids, attention_mask, position_ids):
        hidden = self.model.model(
            input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids, use_cache=False
        ).last_hidden_state
        last = attention_mask.sum(-1) - 1
        rows = torch.arange(hidden.shape[0])
        return hidden[rows, last] @ self.head.T


def answer_ids(tokenizer):
    ids = [tokenizer.get_vocab().get(t) for t in ("no", "yes")]
    if None in ids:
        raise SystemExit('a yes/no reranker needs the tokens "no" and "yes" in its vocabulary')
    return tuple(ids)


def prompt_parts(instruction=INSTRUCTION):
    return SYSTEM + f"<Instruct>: {instruction}\n<Query>:", "\n<Document>:", SUFFIX


def write_template(tokenizer_json, tokenizer, instruction=INSTRUCTION):
    """Rewrites tokenizer.json: the prompt as the pair template, a prefix space before the query and the document."""
    data = json.loads(tokenizer_json.read_text())
    pieces = {}
    for name, text in zip(["PREFIX", "MID", "SUFFIX"], prompt_parts(instruction)):
        ids = tokenizer.encode(text, add_special_tokens=False)
        pieces[name] = {"id": name, "ids": ids, "tokens": tokenizer.convert_ids_to_tokens(ids)}
    seq = lambda s: {"Sequence": {"id": s, "type_id": 0}}  # noqa: E731
    special = lambda s: {"SpecialToken": {"id": s, "type_id": 0}}  # noqa: E731
    data["post_processor"] = {
        "type": "TemplateProcessing",
        "single": [special("PREFIX"), seq("A"), special("MID"), special("SUFFIX")],
        "pair": [special("PREFIX"), seq("A"), special("MID"), seq("B"), special("SUFFIX")],
        "special_tokens": pieces,
    }
    # the space after "<Query>:" and "<Document>:"; a normalizer runs once per sequence (ByteLevel's
    # add_prefix_space would run on every piece the Split pre-tokenizer made)
    prepend = {"type": "Prepend", "prepend": " "}
    data["normalizer"] = {"type": "Sequence", "normalizers": [n for n in [data.get("normalizer"), prepend] if n]}
    tokenizer_json.write_text(json.dumps(data, ensure_ascii=False, indent=2))


def reference_scores(model, tokenizer, pairs, max_length, instruction=INSTRUCTION):
    """The model card's scoring (Qwen3-Reranker README): left padding, the last position, softmax over no/yes."""
    no_id, yes_id = answer_ids(tokenizer)
    prefix = tokenizer.encode(SYSTEM, add_special_tokens=False)
    suffix = tokenizer.encode(SUFFIX, add_special_tokens=False)
    bodies = [f"<Instruct>: {instruction}\n<Query>: {q}\n<Document>: {d}" for q, d in pairs]
    enc = tokenizer(bodies, padding=False, truncation="longest_first", return_attention_mask=False,
                    max_length=max_length - len(prefix) - len(suffix))
    rows = [prefix + ids + suffix for ids in enc["input_ids"]]
    width = max(map(len, rows))
    pad = tokenizer.pad_token_id
    ids = torch.tensor([[pad] * (width - len(r)) + r for r in rows])
    mask = torch.tensor([[0] * (width - len(r)) + [1] * len(r) for r in rows])
    with torch.no_grad():
        logits = model(input_ids=ids, attention_mask=mask).logits[:, -1, :]
    two = torch.stack([logits[:, no_id], logits[:, yes_id]], dim=1)
    p_yes = torch.nn.functional.log_softmax(two, dim=1)[:, 1].exp()
    return (two[:, 1] - two[:, 0]).tolist(), p_yes.tolist(), [len(r) for r in rows]
