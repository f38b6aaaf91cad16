"""Summary strategies: generators of engine.events, driven by engine.summarizer.

rolling (default): the seed's Loop: each round, the previous summary + the next chunk -> the
updated summary, rules re-injected at the top. map_reduce: chunk summaries merged level by level,
bounded depth. stuff: the whole document in one call, when it fits.
"""
STRATEGIES = ("rolling", "map-reduce", "stuff")
