"""Probe with the product's ask (engine.prompts.note_layers), one call per part's notes, greedy."""
import json, sys, time
from llama_cpp import Llama, LlamaGrammar
from precis.engine.prompts.presets import load_preset
from precis.engine.prompts.note_layers import layer_messages, layer_grammar, parse_layers, sorted_layers
MODEL = '/root/.cache/precis-build/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf'
def main(out, rowsfile, group=8):
    preset = load_preset("conversation-archive")
    keys = [l.key for l in sorted_layers(preset)]
    rows = json.load(open(rowsfile))
    llm = Llama(MODEL, n_ctx=8192, n_threads=2, verbose=False, seed=0)
    for k in range(0, len(rows), group):
        g = rows[k:k + group]
        t = time.time()
        r = llm.create_chat_completion(layer_messages(preset, [x['quote'] for x in g], "Japanese"), temperature=0.0,
                                       max_tokens=8 * len(g) + 8,
                                       grammar=LlamaGrammar.from_string(layer_grammar(len(g), keys), verbose=False))
        got = parse_layers(r['choices'][0]['message']['content'], keys)
        print(k, f"{time.time()-t:.1f}s", r['usage']['prompt_tokens'], got, file=sys.stderr)
        for i, x in enumerate(g, 1):
            x['model'] = got.get(i)
    json.dump(rows, open(out, "w"), ensure_ascii=False, indent=1)
if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
