"""A tiny chat model for CPU tests, built here (nothing downloaded): a byte-level BPE tokenizer trained on the
text it will see, a Qwen-style chat template (short: it leaves the tools' schemas out) that writes tool calls as
``<tool_call>{json}</tool_call>`` (TRL's Qwen3 response template parses them), and a 2-layer Qwen2."""

from __future__ import annotations

import json
from pathlib import Path

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM
from trl.chat_template_utils import qwen3_template

SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>"]
TEMPLATE = (
    "{% for m in messages %}"
    "{% if m.role == 'system' or m.role == 'user' %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n"
    "{% elif m.role == 'assistant' %}<|im_start|>assistant\n{{ m.content or '' }}"
    "{% for c in m.tool_calls or [] %}<tool_call>\n"
    "{\"name\": \"{{ c.function.name }}\", \"arguments\": {{ c.function.arguments | tojson }}}\n</tool_call>"
    "{% endfor %}<|im_end|>\n"
    "{% elif m.role == 'tool' %}<|im_start|>user\n<tool_response>\n{{ m.content }}\n</tool_response><|im_end|>\n"
    "{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


def call(name: str, arguments: dict) -> str:
    """An assistant turn making one tool call, as the template writes it."""
    return f"<tool_call>\n{json.dumps({'name': name, 'arguments': arguments})}\n</tool_call><|im_end|>"


def tokenizer(corpus: list[str]) -> PreTrainedTokenizerFast:
    bpe = Tokenizer(models.BPE(unk_token=None))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    bpe.train_from_iterator(corpus, trainers.BpeTrainer(
        vocab_size=600, special_tokens=SPECIAL, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tok = PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                  additional_special_tokens=SPECIAL[1:])
    tok.chat_template = TEMPLATE
    tok.response_template = qwen3_template
    return tok


def model(tok: PreTrainedTokenizerFast, seed: int = 0) -> Qwen2ForCausalLM:
    torch.manual_seed(seed)
    config = Qwen2Config(vocab_size=len(tok), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=4096,
                         tie_word_embeddings=True, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id,
                         bos_token_id=None)
    return Qwen2ForCausalLM(config)


def warm_start(net: Qwen2ForCausalLM, tok, prompt: str, answers: list[str], steps: int = 120) -> None:
    """Teach the model to answer ``prompt`` (rendered text) with one of ``answers``: supervised steps."""
    optimizer = torch.optim.AdamW(net.parameters(), lr=3e-3)
    prompt_ids = tok(prompt, add_special_tokens=False)["input_ids"]
    batch = [prompt_ids + tok(a, add_special_tokens=False)["input_ids"] for a in answers]
    width = max(map(len, batch))
    ids = torch.tensor([b + [tok.pad_token_id] * (width - len(b)) for b in batch])
    labels = ids.clone()
    labels[:, :len(prompt_ids)] = -100
    for i, b in enumerate(batch):
        labels[i, len(b):] = -100
    net.train()
    for _ in range(steps):
        loss = net(input_ids=ids, labels=labels).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    net.eval()


def save(net, tok, folder: Path) -> str:
    net.save_pretrained(folder)
    tok.save_pretrained(folder)
    return str(folder)
