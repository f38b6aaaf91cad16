"""The llama.cpp adapter: with engine.runtime.llama_sampling, the only module that imports llama_cpp (lazily,
on first load).

Everything else talks to the small surface of ``LlamaRuntime`` (tokenize, render_chat, stream,
close), which a scripted fake can stand in for in tests. One runtime is owned by one thread.
"""
from __future__ import annotations

import codecs
import ctypes
import os
import threading
from pathlib import Path
from typing import Iterator, Sequence

from precis.engine.errors import Cancelled, ContextOverflow, ModelLoadError
from precis.engine.runtime.allocation_log import (
    AllocationFailure,
    MeasuredAllocation,
    load_failure_reason,
    memory_failure,
    parse_allocation,
)
from precis.engine.runtime.prompt_lookup import DRAFT_TOKENS, PromptLookup
from precis.engine.runtime.prompt_states import MIN_GAIN_TOKENS, PromptStates, prompt_states_bytes
from precis.engine.runtime.protocol import CallStats, CancelToken, SamplingParams
from precis.engine.runtime.settings import RuntimeSettings, pad_ctx

GGML_TYPE_IDS = {"f16": 1, "q4_0": 2, "q8_0": 8}

_log_lock = threading.Lock()
_log_sink: list[str] | None = None
_log_callback = None  # kept referenced: llama.cpp calls it from C for the life of the process


def _llama_cpp():
    """Import llama_cpp once and route llama.cpp's log to Precis instead of stderr."""
    global _log_callback
    import llama_cpp
    if _log_callback is None:
        @llama_cpp.llama_log_callback
        def _on_log(level, text, user_data):  # noqa: ARG001 - ctypes signature
            sink = _log_sink
            if sink is not None:
                sink.append(text.decode("utf-8", errors="replace"))
        llama_cpp.llama_log_set(_on_log, ctypes.c_void_p(0))
        _log_callback = _on_log
    return llama_cpp


class LlamaRuntime:
    def __init__(self, llm, path: Path, settings: RuntimeSettings, allocation: MeasuredAllocation,
                 log_text: str) -> None:
        self._llm = llm
        self.path = path
        self.settings = settings
        self.allocation = allocation
        self.load_log = log_text
        self.n_ctx = llm.n_ctx()
        self.last_call = CallStats()
        self._cancel: CancelToken | None = None
        self._abort_cb = None
        self._n_swa = 0
        self._swa_reduced = False
        self._formatter = None
        self._pieces: dict[int, bytes] = {}
        self._piece_facts: dict[int, tuple[bytes, int, bool]] = {}
        self._grammars: dict[str, object] = {}
        self._answer_ids: dict[str, set[int]] = {}
        # A grammar-held reply's grammar checked on the likeliest tokens first (engine.runtime.llama_sampling):
        # the same tokens, sampled faster. False: llama-cpp-python's own chain (a test compares the two).
        self.candidates_first = True
        self.last_sampler = None
        # A reply's next tokens guessed from the prompt and checked in one batch (engine.runtime.prompt_lookup):
        # "free" (the default) for replies no grammar holds, "all" for every reply, "off" one token at a time.
        # Not for a grammar-held reply by default: on this machine's CPU the notes' held replies of the check
        # half came no faster (their rewordings rarely repeat their sentences), and a drafted reply is another
        # draw of the same kind (docs/memory.md, "Guessing a reply's next tokens from its prompt").
        self.prompt_lookup = "free"
        self.last_draft: PromptLookup | None = None
        if not getattr(llm, "_vocab_only_precis", False):
            self._install_abort_callback()
            self._detect_swa()
            llm._init_sampler = self._init_sampler     # Llama.generate builds its sampler through this
            llm.eval = self._eval                      # ... and evaluates through this (a batch of guesses)
        # Earlier prompts' cells, saved when a call would discard them (engine.runtime.prompt_states). Not for a
        # reduced sliding-window cache (a state holds only the window's cells) nor a recurrent model (its state
        # cannot be cut back to a prefix).
        self.prompt_states: PromptStates | None = None
        if not getattr(llm, "_vocab_only_precis", False) and not self._swa_reduced \
                and not getattr(llm, "_is_recurrent", False) and not getattr(llm, "_is_hybrid", False):
            self.prompt_states = PromptStates(prompt_states_bytes(round(allocation.kv_mib * 2**20)))

    # ----- loading -------------------------------------------------------------------------
    @classmethod
    def load(cls, path: str | Path, settings: RuntimeSettings, *, vocab_only: bool = False) -> "LlamaRuntime":
        global _log_sink
        path = Path(path)
        if not path.is_file():
            raise ModelLoadError(f"No model file at {path}.")
        llama_cpp = _llama_cpp()
        import psutil
        proc = psutil.Process()
        lines: list[str] = []
        with _log_lock:
            _log_sink = lines
            rss_before = proc.memory_info().rss
            try:
                llm = llama_cpp.Llama(
                    model_path=str(path), n_ctx=settings.n_ctx, n_batch=settings.n_batch,
                    n_ubatch=settings.n_ubatch, n_threads=settings.n_threads or _default_threads(),
                    n_threads_batch=settings.n_threads or _default_threads(),
                    type_k=GGML_TYPE_IDS[settings.type_k], type_v=GGML_TYPE_IDS[settings.type_v],
                    flash_attn=settings.flash_attn, swa_full=settings.swa_full, vocab_only=vocab_only,
                    n_gpu_layers=0 if vocab_only else settings.n_gpu_layers, verbose=False, seed=0)
            except (ValueError, RuntimeError, OSError) as exc:
                log_text = "".join(lines)
                failure = memory_failure(log_text)
                if failure is not None:
                    raise ModelLoadError(out_of_memory_message(path, settings, failure)) from exc
                reason = load_failure_reason(log_text) or str(exc)
                raise ModelLoadError(
                    f"Could not load {path.name}: {reason}. If the file is truncated or corrupt, download it "
                    "again; if memory ran out, choose a smaller context or KV cache type.") from exc
            finally:
                _log_sink = None
        log_text = "".join(lines)
        allocation = parse_allocation(log_text)
        allocation.rss_before_bytes = rss_before
        allocation.rss_after_bytes = proc.memory_info().rss
        if not vocab_only:
            allocation.model_size_bytes = int(llama_cpp.llama_model_size(llm._model.model))
        llm._vocab_only_precis = vocab_only
        return cls(llm, path, settings, allocation, log_text)

    def forget_prompts(self) -> None:
        """Nothing of the earlier calls' prompts reused from here on: the live cache emptied and the saved
        prompt states dropped, so that the next call is evaluated as by a freshly loaded model. A reused
        prefix's cells were computed in the batches of the call that first evaluated them, and llama.cpp's
        logits move with a batch's shape (docs/memory.md): in one process, a development earnings call's
        summary differed from its first note on between two sittings because the document before it had run
        other calls (docs/quality.md, "A refused sentence's figures kept"). A benchmark's documents start so."""
        if self.prompt_states is not None:
            self.prompt_states.clear()
        if self._llm is not None and self._llm.n_tokens > 0:
            self._llm.reset()

    def close(self) -> None:
        if self._llm is not None:
            self._llm.close()
            self._llm = None

    def __enter__(self) -> "LlamaRuntime":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ----- text and tokens -----------------------------------------------------------------
    def tokenize(self, text: str, *, special: bool = False) -> list[int]:
        return self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=special)

    def count_tokens(self, text: str, *, special: bool = False) -> int:
        return len(self.tokenize(text, special=special))

    def token_char_starts(self, text: str) -> list[int] | None:
        """Tokenize ``text`` once and return the character offset where each token starts.

        Pieces of byte-level BPE tokens can split a UTF-8 character; such a token is placed at the
        character it starts inside. None when the pieces do not rebuild the text byte for byte
        (tokenizers that add a leading space): callers then count piece by piece instead.
        """
        ids = self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)
        cache = self._piece_facts
        pieces = []
        starts = []
        chars = 0
        for t in ids:
            entry = cache.get(t)
            if entry is None:
                piece = self.token_piece(t)
                entry = cache[t] = (piece, sum(1 for b in piece if b & 0xC0 != 0x80),
                                    bool(piece) and piece[0] & 0xC0 == 0x80)
            piece, leads, starts_mid_char = entry
            pieces.append(piece)
            starts.append(chars - 1 if starts_mid_char else chars)
            chars += leads
        if b"".join(pieces) != text.encode("utf-8"):
            return None
        return starts

    def token_piece(self, token: int) -> bytes:
        """The bytes of one token. llama-cpp-python's own detokenize uses a 32-byte buffer and returns
        garbage for longer pieces (SmolLM2 has 40-dash tokens: measured on the corpus' Markdown tables)."""
        piece = self._pieces.get(token)
        if piece is None:
            llama_cpp = _llama_cpp()
            size = 64
            while True:
                buf = ctypes.create_string_buffer(size)
                n = llama_cpp.llama_token_to_piece(self._llm._model.vocab, llama_cpp.llama_token(token), buf, size,
                                                   0, False)
                if n >= 0:
                    break
                size = -n  # llama.cpp returns minus the size it needs
            piece = self._pieces[token] = buf.raw[:n]
        return piece

    def detokenize(self, tokens: Sequence[int]) -> str:
        return b"".join(self.token_piece(t) for t in tokens).decode("utf-8", errors="replace")

    @property
    def chat_template(self) -> str | None:
        return self._llm.metadata.get("tokenizer.chat_template")

    def render_chat(self, messages: list[dict]) -> str:
        """The exact prompt text the model's own chat template makes of ``messages``."""
        if self._formatter is None:
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter
            template = self.chat_template or _CHATML_FALLBACK
            model = self._llm._model
            eos, bos = self._llm.token_eos(), self._llm.token_bos()
            self._formatter = Jinja2ChatFormatter(
                template=template, eos_token=model.token_get_text(eos) if eos != -1 else "",
                bos_token=model.token_get_text(bos) if bos != -1 else "")
        return self._formatter(messages=messages).prompt

    # ----- generation ----------------------------------------------------------------------
    def stream(self, prompt: str, params: SamplingParams, cancel: CancelToken | None = None) -> Iterator[str]:
        """Yield text pieces of the reply to ``prompt`` (already rendered). Stats land in last_call."""
        import time
        tokens = self.tokenize(prompt, special=True)
        llm = self._llm
        stats = self._begin_call(tokens, params.max_tokens)
        self._cancel = cancel
        llm.set_seed(params.seed)
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        started = time.perf_counter()
        first_token_at = None
        guessed = self.prompt_lookup == "all" or (self.prompt_lookup == "free" and not params.grammar)
        self.last_draft = PromptLookup() if guessed and self._drafts_fit() else None
        llm.draft_model = self.last_draft          # set only while this reply streams (_eval reads it)
        gen = llm.generate(tokens, top_k=params.top_k, top_p=params.top_p, min_p=params.min_p,
                           temp=params.temperature, repeat_penalty=params.repeat_penalty,
                           grammar=self._grammar(params.grammar))
        try:
            for token in gen:
                if first_token_at is None:
                    first_token_at = time.perf_counter()
                if cancel is not None and cancel.cancelled:
                    stats.stopped_by = "cancelled"
                    raise Cancelled("Stopped by the user.")
                if llama_is_eog(llm, token):
                    stats.stopped_by = "eos"
                    break
                stats.generated_token_ids.append(token)
                stats.generated_tokens += 1
                piece = decoder.decode(self.token_piece(token))
                if piece:
                    yield piece
                if stats.generated_tokens >= params.max_tokens:
                    stats.hit_max_tokens = True
                    stats.stopped_by = "max_tokens"
                    break
            else:
                stats.stopped_by = stats.stopped_by or "eos"
        except RuntimeError as exc:
            if cancel is not None and cancel.cancelled:  # llama_decode aborted by our callback
                stats.stopped_by = "cancelled"
                llm.reset()
                raise Cancelled("Stopped by the user during prompt processing.") from exc
            raise
        except GeneratorExit:
            stats.stopped_by = stats.stopped_by or "caller"
            raise
        finally:
            gen.close()
            self._cancel = None
            llm.draft_model = None
            end = time.perf_counter()
            stats.prompt_seconds = (first_token_at or end) - started
            stats.generate_seconds = end - (first_token_at or end)
        tail = decoder.decode(b"", final=True)
        if tail:
            yield tail

    def answer_logprobs(self, prompt: str, answers: Sequence[str],
                        cancel: CancelToken | None = None) -> dict[str, float]:
        """The log-probability of each of ``answers`` as the first token of the reply to ``prompt`` (already
        rendered): a yes/no reading weighed, not sampled, so its caller can ask for more than an even chance
        (engine.summary.second_reading). Only the prompt is evaluated (its shared prefix reused, as ``stream``
        does); stats land in last_call."""
        import time

        import numpy as np
        tokens = self.tokenize(prompt, special=True)
        llm = self._llm
        stats = self._begin_call(tokens, 1)
        llm.n_tokens = stats.reused_tokens      # eval() drops the cache's cells after the reused prefix
        self._cancel = cancel
        started = time.perf_counter()
        try:
            llm.eval(tokens[stats.reused_tokens:])
        except RuntimeError as exc:
            if cancel is not None and cancel.cancelled:
                stats.stopped_by = "cancelled"
                llm.reset()
                raise Cancelled("Stopped by the user during prompt processing.") from exc
            raise
        finally:
            self._cancel = None
            stats.prompt_seconds = time.perf_counter() - started
        # Without logits_all llama.cpp keeps one row of logits: the last prompt token's, the reply's first
        logits = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm.n_vocab(),)).astype(np.float64)
        top = logits.max()
        log_total = top + np.log(np.exp(logits - top).sum())
        stats.stopped_by = "eos"
        out = {}
        for answer in answers:
            # "Yes" and " Yes" are different tokens in most vocabularies: the likelier of the two stands
            ids = self._answer_ids.get(answer)
            if ids is None:
                ids = self._answer_ids[answer] = {t[0] for t in (self.tokenize(answer), self.tokenize(" " + answer))
                                                  if t}
            out[answer] = float(max(logits[i] for i in ids) - log_total)
        return out

    def _begin_call(self, tokens: list[int], reply_tokens: int) -> CallStats:
        """last_call's stats for a prompt of ``tokens``: refused if it and ``reply_tokens`` overflow the context;
        the cache reset when nothing of it is reusable (or a sliding window evicted it)."""
        if len(tokens) + reply_tokens > self.n_ctx:
            raise ContextOverflow(
                f"Prompt of {len(tokens)} tokens plus {reply_tokens} reply tokens exceeds the context of "
                f"{self.n_ctx} tokens. This is a planning bug; the round was not sent.")
        reusable = self._reusable_prefix(tokens)
        live = reusable
        if self.prompt_states is not None:
            reusable = self._switch_state(tokens, reusable)
        if reusable == 0 and self._llm.n_tokens > 0:
            self._llm.reset()
        self.last_call = CallStats(prompt_tokens=len(tokens), reused_tokens=reusable,
                                   evaluated_tokens=len(tokens) - reusable, restored_tokens=max(0, reusable - live))
        return self.last_call

    def _switch_state(self, tokens: list[int], reusable: int) -> int:
        """The prompt tokens reusable for ``tokens``, once the live cache's cells are saved where this call is of
        another kind (it shares fewer than ``MIN_GAIN_TOKENS`` with them) and would discard them, and a saved state
        that shares more with ``tokens`` (by ``MIN_GAIN_TOKENS`` at least) is restored in their place (engine.
        runtime.prompt_states). A call of the same kind (the next round of a rolling loop, the next sentence asked
        alone) discards only what the one before it asked in particular: nothing a later prompt starts with."""
        import numpy as np
        llm, states = self._llm, self.prompt_states
        if reusable < MIN_GAIN_TOKENS and llm.n_tokens - reusable >= MIN_GAIN_TOKENS:
            live = np.array(llm.input_ids[:llm.n_tokens], dtype=np.int32)
            if not states.holds(live):
                self._save_state(live)
        wanted = np.asarray(tokens, dtype=np.int32)
        best, shared = states.best(wanted)
        shared = min(shared, len(tokens) - 1)        # the last prompt token is always re-run for its logits
        if best is None or shared - reusable < MIN_GAIN_TOKENS:
            return reusable
        if not self._load_state(best.tokens, best.data):
            return 0
        states.used(best, shared - reusable)
        return shared

    def _save_state(self, live) -> None:
        llama_cpp = _llama_cpp()
        ctx = self._llm._ctx.ctx
        size = llama_cpp.llama_state_seq_get_size(ctx, 0)
        if not size or size > self.prompt_states.budget_bytes:
            return
        buf = (ctypes.c_uint8 * size)()
        written = llama_cpp.llama_state_seq_get_data(ctx, buf, size, 0)
        if written:       # kept as llama.cpp wrote it: no second copy of tens of megabytes
            data = buf if written == size else (ctypes.c_uint8 * written).from_buffer_copy(memoryview(buf)[:written])
            self.prompt_states.add(live, data)

    def _load_state(self, tokens, data) -> bool:
        """The cache set to a saved state's cells and tokens; False (the cache emptied) if llama.cpp refused it."""
        llama_cpp = _llama_cpp()
        llm = self._llm
        llama_cpp.llama_memory_seq_rm(llama_cpp.llama_get_memory(llm._ctx.ctx), -1, -1, -1)
        if not llama_cpp.llama_state_seq_set_data(llm._ctx.ctx, data, len(data), 0):
            llm.reset()
            self.prompt_states.clear()
            return False
        llm.input_ids[:len(tokens)] = tokens
        llm.n_tokens = len(tokens)
        llm._requires_eval = True                  # the restored cells came with no logits
        return True

    def _drafts_fit(self) -> bool:
        """Guesses are checked where the cache can be cut back to any position: not a recurrent model's state,
        nor a reduced sliding-window cache (cells the guesses pushed out of the window would be gone when a
        guess is taken back); and where llama.cpp keeps an output row for each token of a batch of guesses."""
        llm = self._llm
        return not getattr(llm, "_is_recurrent", False) and not getattr(llm, "_is_hybrid", False) \
            and not self._swa_reduced and llm.n_batch > DRAFT_TOKENS

    def _eval(self, tokens: Sequence[int]) -> None:
        """``Llama.eval`` without its copy of the logits (``logits_all`` is off): while a reply is drafted, every
        position of a batch of guesses (the token just sampled and at most DRAFT_TOKENS after it) keeps its
        logits in llama.cpp's output rows, where the sampler reads them by their offset from the batch's end
        (engine.runtime.prompt_lookup); a prompt's batches keep only their last position's, as before."""
        llm = self._llm
        drafting = llm.draft_model is not None
        llm._ctx.kv_cache_seq_rm(-1, llm.n_tokens, -1)
        every = drafting and 1 < len(tokens) <= DRAFT_TOKENS + 1
        for i in range(0, len(tokens), llm.n_batch):
            batch = tokens[i:min(len(tokens), i + llm.n_batch)]
            n_past = llm.n_tokens
            llm._batch.set_batch(batch=batch, n_past=n_past, logits_all=every)
            llm._ctx.decode(llm._batch)
            llm.input_ids[n_past:n_past + len(batch)] = batch
            llm.n_tokens += len(batch)
            llm._requires_eval = False
            if drafting and n_past >= self.last_call.prompt_tokens:
                self.last_call.decode_steps += 1          # a reply's step, not its prompt's

    def _init_sampler(self, **kw):
        """The sampler ``Llama.generate`` samples with: for a grammar-held reply (no mirostat, no logits
        processor), one that checks the grammar on the likeliest tokens first; else llama-cpp-python's own."""
        from precis.engine.runtime.llama_sampling import CandidatesFirstSampler
        llm = self._llm
        temp = kw.get("temp", 0.8)
        # exact only where top-k (or greedy) bounds what the later samplers see: not for a draw from every token
        # (temperature below 0, top-k off) nor for typical sampling, which weighs the whole distribution
        bounded = temp == 0.0 or (temp > 0.0 and kw.get("top_k", 40) > 0 and kw.get("typical_p", 1.0) >= 1.0)
        if (not self.candidates_first or kw.get("grammar") is None or kw.get("mirostat_mode")
                or kw.get("logits_processor") is not None or not bounded):
            self.last_sampler = type(llm)._init_sampler(llm, **kw)
        else:
            self.last_sampler = CandidatesFirstSampler(llm, **kw)
        return self.last_sampler

    def _grammar(self, gbnf: str | None):
        """The compiled grammar for ``gbnf`` (compiled once per text; llama.cpp copies it per call)."""
        if not gbnf:
            return None
        compiled = self._grammars.get(gbnf)
        if compiled is None:
            from llama_cpp import LlamaGrammar
            try:
                compiled = LlamaGrammar.from_string(gbnf, verbose=False)
            except ValueError as exc:
                raise ModelLoadError(f"The output grammar could not be compiled ({exc}); this is a bug.") from exc
            self._grammars[gbnf] = compiled
        return compiled

    def _reusable_prefix(self, tokens: list[int]) -> int:
        """Prompt tokens llama-cpp-python will take from the cache, after the sliding-window check.

        llama-cpp-python keeps the longest common prefix with the previous call but does not check
        that a reduced sliding-window cache still holds the cells that prefix needs. Measured with
        Gemma 3 270M (swa_full=False): reusing a 600-token prefix after a 2200-token call changed the
        greedy output. So when the window has moved past the prefix, nothing is reused.
        """
        llm = self._llm
        cached = list(llm._input_ids)
        prefix = 0
        for a, b in zip(cached, tokens):
            if a != b:
                break
            prefix += 1
        prefix = min(prefix, len(tokens) - 1)  # the last prompt token is always re-run for its logits
        if prefix <= 0:
            return 0
        if self._swa_reduced:
            llama_cpp = _llama_cpp()
            mem = llama_cpp.llama_get_memory(llm._ctx.ctx)
            pos_min = llama_cpp.llama_memory_seq_pos_min(mem, 0)
            if pos_min > max(0, prefix - self._n_swa):
                return 0
        return prefix

    def _detect_swa(self) -> None:
        md = self._llm.metadata
        arch = md.get("general.architecture", "")
        self._n_swa = int(md.get(f"{arch}.attention.sliding_window", 0) or 0)
        self._swa_reduced = bool(self._n_swa) and not self.settings.swa_full and \
            self._n_swa + self.settings.n_ubatch < pad_ctx(self.settings.n_ctx)

    def _install_abort_callback(self) -> None:
        llama_cpp = _llama_cpp()

        @llama_cpp.ggml_abort_callback
        def _should_abort(user_data):  # noqa: ARG001 - ctypes signature
            token = self._cancel
            return bool(token is not None and token.cancelled)

        llama_cpp.llama_set_abort_callback(self._llm._ctx.ctx, _should_abort, None)
        self._abort_cb = _should_abort


def out_of_memory_message(path: Path, settings: RuntimeSettings, failure: AllocationFailure) -> str:
    """Which pool ran out and what to lower. Nothing ran yet: no round is lost."""
    where = "the RAM" if failure.pool == "RAM" else f"the GPU {failure.pool}"
    if failure.pool == "RAM":
        lower = "a smaller context (--n-ctx) or --kv-type q8_0" + \
            (", or more --gpu-layers (layers on the GPU leave the RAM)" if settings.n_gpu_layers else "")
    else:
        lower = (f"fewer --gpu-layers (this load asked for {settings.n_gpu_layers}), a smaller context (--n-ctx) or "
                 "--kv-type q8_0")
    return (f"Could not load {path.name}: llama.cpp could not allocate {failure.mib:,.1f} MiB for the "
            f"{failure.part} in {where} ({failure.line}). Use {lower}; `precis plan --gpu-layers auto` shows what "
            "fits each pool. Nothing was run, so nothing is lost.")


def llama_is_eog(llm, token: int) -> bool:
    llama_cpp = _llama_cpp()
    return bool(llama_cpp.llama_vocab_is_eog(llm._model.vocab, token))


def _default_threads() -> int:
    # Physical cores are the sweet spot for llama.cpp on CPU; logical ones only add contention.
    try:
        import psutil
        return max(1, psutil.cpu_count(logical=False) or os.cpu_count() or 1)
    except Exception:  # psutil can fail in odd containers; fall back to the OS count
        return max(1, os.cpu_count() or 1)


# Used only for GGUFs without a chat template (base models): plain ChatML.
_CHATML_FALLBACK = ("{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}"
                    "<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")
