"""ctxsel's benchmark suite.

The co-change retrieval benchmark (`python -m bench.cochange`) replays real
commits of public monorepos: given the repository as it was *before* the
commit, a seed file and the commit message, how many of the commit's other
changed files does a method pack into a token budget?  The protocol, the mined
cases and the reference baseline figures live in the shared directory
(``$CTXSEL_SHARED/bench``, default ``<repo>/../shared/bench``); this package is
the runner that follows that protocol, so that every quality claim ctxsel
makes can be rerun by anyone.
"""
