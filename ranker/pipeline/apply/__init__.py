"""``ranker apply`` below its command: a trained model applied to input without gold, and what it writes.

:mod:`.lists` ranks a stream of n-best lists chunk by chunk, with nothing stored (one stream, or one
partition of the input in one task of an executor); :mod:`.parts` keeps a partitioned run's output
as one part file per partition and joins them in input order; :mod:`.no_gold_report` is the report of
``ranker apply --report DIR``, which has no gold to score against. The package imports nothing
itself: ``ranker apply`` imports the module it needs.
"""
