"""Each note's sentence alone, the four keys weighed (first-token log-probabilities), prefix reused."""
import json, sys, time
from precis.engine.runtime.llama import LlamaRuntime
from precis.engine.runtime.settings import RuntimeSettings
from precis.engine.prompts.layout import PromptRenderer
from precis.engine.prompts.note_layers import _shown
MODEL = '/root/.cache/precis-build/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf'
KEYS = ["done", "decision", "pattern", "todo"]
RULES = """[Rules]
The sentence I send comes from one day's conversation between a person and an AI assistant.
Answer with one word, what the sentence records:
done: something the person or the assistant did, ran, found or checked that day
decision: a choice that was made, or a judgement of what is right or better (often with its reason)
pattern: a rule, lesson or way of working to reuse in later work
todo: work still left to do, or a next step not yet taken
[End of rules]"""
EX = [("コードベースを調査し、設定ファイルの読み込み箇所を確認しました。", "done"),
      ("オフライン専用なので Postgres ではなく SQLite を採用する。", "decision"),
      ("次はエクスポートコマンドを追加し、ドキュメントを書く。", "todo"),
      ("テストを実行し、42 件すべて成功、lint も 0 件。", "done"),
      ("マイグレーションは必ずデータベースのコピーで先に試す。", "pattern")]
def messages(sentence):
    m = [{"role": "system", "content": "You sort the sentences of a document into the sections of its summary. You answer with one word."}]
    for i, (s, k) in enumerate(EX):
        m += [{"role": "user", "content": (RULES + "\n" if i == 0 else "") + f"<item>\n{s}\n</item>\nLabel:"},
              {"role": "assistant", "content": k}]
    m.append({"role": "user", "content": f"<item>\n{_shown(sentence)}\n</item>\nLabel:"})
    return m
def main(out, *rowsfiles):
    rt = LlamaRuntime.load(MODEL, RuntimeSettings(n_ctx=8192))
    r = PromptRenderer(rt)
    allrows = []
    for rf in rowsfiles:
        rows = json.load(open(rf))
        t = time.time()
        for x in rows:
            x['lp'] = rt.answer_logprobs(r.render(messages(x['quote'])), KEYS)
            x['model'] = max(x['lp'], key=x['lp'].get)
        print(rf, f"{time.time()-t:.0f}s", len(rows), file=sys.stderr)
        allrows.append(rows)
    json.dump(allrows, open(out, "w"), ensure_ascii=False, indent=1)
if __name__ == "__main__":
    main(sys.argv[1], *sys.argv[2:])
