"""InstructBLIP's Q-Former reads the instruction too, through its own BERT tokenizer, and has 512 position
embeddings: a longer prompt (BD-HazardVLM's is ~3,100 characters, 800+ BERT tokens) fails in the Q-Former's
embeddings with a size mismatch. The original implementation (LAVIS) truncates the Q-Former's text (its
`qformer_max_txt_len`); the processor here does the same: the Q-Former gets the prompt's first positions, the
language model still gets the whole prompt."""

from __future__ import annotations

from typing import Any


class TruncatingTokenizer:
    """The Q-Former tokenizer, truncating every call to `max_length` tokens (everything else delegated)."""

    def __init__(self, tokenizer: Any, max_length: int) -> None:
        self._tokenizer = tokenizer
        self._max_length = max_length

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.update(truncation=True, max_length=self._max_length)
        return self._tokenizer(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._tokenizer, name)


def limit(processor: Any, config: Any) -> None:
    """Make `processor` truncate its Q-Former text to the Q-Former's positions (no-op for other families)."""
    tokenizer = getattr(processor, "qformer_tokenizer", None)
    qformer = getattr(config, "qformer_config", None)
    positions = getattr(qformer, "max_position_embeddings", None)
    if tokenizer is not None and positions and not isinstance(tokenizer, TruncatingTokenizer):
        processor.qformer_tokenizer = TruncatingTokenizer(tokenizer, int(positions))
