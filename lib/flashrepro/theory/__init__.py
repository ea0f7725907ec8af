"""Analytic models the kernels are checked against: the field's exact or near-exact results for
the simplest cases, under the models' own assumptions (independent references, uniform random page writes).

* :mod:`.cache`: LRU against Che's approximation, FIFO and RANDOM replacement against their
  characteristic-time approximation, and tiny catalogues solved exactly;
* :mod:`.ftl`: the FTL's victim rules under uniform random single-page writes against Desnoyers' closed
  form (FIFO), the mean-field limit of a uniformly random victim, and Van Houdt's mean-field model (greedy,
  d-choice).

Notebook ``07_theory`` puts each beside the kernels' runs, and the claims ledger has a row per case.
"""
