# flashrepro: `make` regenerates every table and figure; `make test` runs every test.
SHELL := /bin/bash
.DEFAULT_GOAL := all
MAKEFLAGS += --no-builtin-rules  # every rule is below (and paper% would chain with the built-in ones: paper.o)
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# make test's pytest-xdist worker processes (auto: one per core; a test file stays on one worker)
TEST_WORKERS ?= auto
STAMP := $(VENV)/.installed-stamp
LIB := $(shell find lib -name '*.py' -not -path '*/__pycache__/*')
DATA := $(wildcard data/paper/*)
NOTEBOOKS := $(wildcard notebooks/*.ipynb)
PAPER := $(patsubst notebooks/%.ipynb,build/paper/%.ipynb,$(NOTEBOOKS))
QUICK := $(patsubst notebooks/%.ipynb,build/quick/%.ipynb,$(NOTEBOOKS))
export PYTHONHASHSEED := 0
# lib/'s bytecode, written ahead (incremental: only modules changed since). Python writes it on a module's first
# import anyway, except where PYTHONDONTWRITEBYTECODE is set (as on this machine and its CI): there every process
# compiled the package from source again, 0.13 s of CPU in each one that imports the command line.
BYTECODE = $(PY) -m compileall -q -j 0 lib
export MPLBACKEND := Agg

.PHONY: all warm-ftl warm-others quick test lint bench profile-ftl lab clean nbval-refresh install lock report browser robustness docs

# `make` runs JOBS notebooks at a time (default: one per core; `make JOBS=1` runs them one after another), the
# slowest first by their last wall time at paper scale (results/notebook_timings.csv), so that the longest one never
# starts last. On a fresh clone, which has no timings yet, FIRST_WITHOUT_TIMINGS go first (the two that take longest
# at paper scale: docs/install_and_make.md's table of wall times), then the others alphabetically. Each notebook
# writes only its own files, a temporary renamed when complete; the parse cache and the timings file are safe to
# share (see tempfiles.py, traces/store.py).
JOBS ?= $(shell nproc 2>/dev/null || echo 1)
FIRST_WITHOUT_TIMINGS := 04_2rpp 06_matrix
SLOWEST := $(shell awk -F, 'NR > 1 && $$2 == "paper" {print $$4, $$1}' results/notebook_timings.csv 2>/dev/null \
	| sort -rn | awk '{print "build/paper/" $$2 ".ipynb"}')
ifeq ($(strip $(SLOWEST)),)
SLOWEST := $(patsubst %,build/paper/%.ipynb,$(FIRST_WITHOUT_TIMINGS))
endif
PAPER_ORDER := $(filter $(PAPER),$(SLOWEST)) $(filter-out $(SLOWEST),$(PAPER))

# The kernels compile each once, on every core (flashrepro.warm; nothing to do once a run has compiled this
# version of the source): otherwise each notebook compiles what it needs when it first runs it, two at once
# compiling the same kernels. The FTL is one job, the longest, on one core (its host loop is one function for every
# victim rule), and the rest of the warm-up runs beside it on the other cores (JOBS - 1 processes: a third process
# on two cores nearly doubled the FTL's compile in a cold run, and notebook 04 waits for it).
# FTL_ONLY (notebook 04, the slowest, which runs nothing but the FTL) starts once the FTL is compiled, beside the
# rest of the warm-up; the others wait for both.
WARM = $(PY) -m flashrepro.warm --if-needed
WARM_BESIDE_FTL := $(shell n=$(JOBS); [ "$$n" -gt 1 ] 2>/dev/null && echo $$((n - 1)) || echo 1)
FTL_ONLY := build/paper/04_2rpp.ipynb
# `notebooks timed` keeps the run's wall and CPU time in results/make_timings.csv when it re-ran anything (exec: no
# shell between, so a SIGTERM that make passes on reaches it, and it passes it on to the notebooks' make).
all: $(STAMP)  ## every notebook at paper scale (JOBS at a time), the claims ledger, the reduced robustness maps
	@$(BYTECODE)
	@exec $(PY) -m flashrepro.notebooks timed --outputs "$(PAPER) $(ROBUST)" -- \
		$(MAKE) --no-print-directory -j$(JOBS) WARM_FIRST=1 results/claims.csv results/headline.csv
	@echo "done: tables in results/, figures in figures/, executed notebooks in build/paper/"

ifneq ($(WARM_FIRST),)
$(PAPER): | warm-ftl
$(filter-out $(FTL_ONLY),$(PAPER)): | warm-others
endif
warm-ftl:
	@$(WARM) --only ftl --jobs 1
warm-others:
	@$(WARM) --skip ftl --jobs $(WARM_BESIDE_FTL)

# Every paper's claims in one table, and a count per paper.
results/claims.csv: $(PAPER_ORDER)
	@$(PY) -m flashrepro.claims

# The reduced robustness maps (32 points per paper; `make robustness` runs the full ones), each paper's as soon as
# its notebook is done: the default point at the claims' scale is read from the ledger the notebook just wrote, and
# its generated text gets the headline rows. So the early papers' maps run beside the slow notebook 04 instead of
# all after it. The maps' CSVs are merged paper by paper under a lock (robustness/files.py: the same files as one
# map of all papers); a notebook with no map (00, 06, 07) only leaves its stamp.
ROBUST := $(patsubst build/paper/%.ipynb,build/robustness/%.done,$(PAPER_ORDER))
build/robustness/%.done: build/paper/%.ipynb
	@$(PY) -m flashrepro.robustness --map reduced --executor process --ledger results --texts results --notebook $*
	@mkdir -p $(@D) && touch $@

results/headline.csv: $(ROBUST)
	@:

install: $(STAMP)
# Exact versions from requirements.lock (pyproject.toml holds the ranges; `make lock` re-pins them).
$(STAMP): pyproject.toml requirements.lock
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.lock
	$(PY) -m pip install --quiet --no-deps -e .
	$(BYTECODE)
	@touch $@

lock:  ## re-pin every dependency at the newest versions pyproject.toml allows -> requirements.lock
	rm -rf build/lockenv && $(PYTHON) -m venv build/lockenv
	build/lockenv/bin/pip install --quiet --upgrade pip
	build/lockenv/bin/pip install --quiet '.[dev]'
	build/lockenv/bin/pip freeze --exclude-editable | grep -v '^flashrepro' > requirements.lock.tmp
	mv requirements.lock.tmp requirements.lock && rm -rf build/lockenv
	@echo "wrote requirements.lock; run make install"

# A notebook re-runs when it, any library source or any of the papers' numbers changes.
build/paper/%.ipynb: notebooks/%.ipynb $(LIB) $(DATA) $(STAMP)
	@$(PY) -m flashrepro.notebooks run $< $@ -p scale paper

build/quick/%.ipynb: notebooks/%.ipynb $(LIB) $(DATA) $(STAMP)
	@$(PY) -m flashrepro.notebooks run $< $@ -p scale quick

quick: $(QUICK)  ## every notebook at a small scale
	@$(PY) -m flashrepro.claims --results results/quick

# paperN: notebook N at paper scale (make paper0 to make paper7). N is found in the papers' specs, each
# paper package's PAPER (`python -m flashrepro.papers` lists them), so a new paper's package and notebook
# need no line here. (Not .PHONY: make skips pattern rules for phony targets.)
paper%: $(STAMP)  ## one notebook at paper scale: 0 workloads, 1-5 the papers, 6 the cross-paper matrix, 7 theory
	@nb=$$($(PY) -m flashrepro.papers notebook $*) && $(MAKE) --no-print-directory build/paper/$$nb.ipynb

# The browsable report from what `make` wrote (re-runs only the notebooks that are out of date; seconds if none).
report: results/claims.csv results/headline.csv  ## build/report/index.html: claims counts, filterable claims, figures, notebooks as HTML
	$(PY) -m flashrepro.site

# The tables of measured numbers in README.md and docs/*.md, between <!-- results:NAME:begin/end --> markers, from
# what is in results/ now (a block whose files are missing says to run make first; nothing is re-run).
docs: $(STAMP)  ## render docs/ tables from results/
	$(PY) -m flashrepro.docs

# Headless Chromium for tests/test_site.py's browser test: found on PATH (the names the test looks for) or
# FLASHREPRO_BROWSER, else Debian's package installed with apt-get (as root, or through passwordless sudo).
# Fails, saying why, where it can do neither; `make test` runs it and goes on with a warning (the browser test
# is then skipped, and the warning repeated after pytest).
BROWSERS := chromium chromium-browser google-chrome chrome
HAVE_BROWSER = { test -x "$$FLASHREPRO_BROWSER" && exit 0; for b in $(BROWSERS); do command -v $$b >/dev/null && exit 0; done; exit 1; }
BROWSER_WARNING = echo "*** WARNING: no headless Chromium, so tests/test_site.py::test_report_renders_in_headless_chromium \
	(the report's filter, captions and provenance as a browser shows them) is SKIPPED. Install Debian's chromium \
	(sudo apt-get install chromium, or sudo make browser) or point FLASHREPRO_BROWSER at a Chrome/Chromium binary. ***"
browser:  ## headless Chromium for the report's browser test (apt-get install chromium when root or with sudo)
	@if ( $(HAVE_BROWSER) ); then exit 0; fi; \
	if ! command -v apt-get >/dev/null; then echo "make browser: no apt-get here; install Chromium by hand" >&2; exit 1; fi; \
	if [ "$$(id -u)" = 0 ]; then sudo=; elif sudo -n true 2>/dev/null; then sudo="sudo -n"; \
	else echo "make browser: not root and no passwordless sudo: cannot apt-get install chromium" >&2; exit 1; fi; \
	echo "make browser: installing Debian's chromium with apt-get"; \
	$$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q && \
	$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium && ( $(HAVE_BROWSER) ) \
	|| { echo "make browser: apt-get install chromium failed" >&2; exit 1; }

ROBUSTNESS_ARGS ?=
robustness: $(STAMP)  ## the full robustness maps (256 points per paper) -> results/robustness_full/, figures/robustness_full/
	$(PY) -m flashrepro.robustness --map full --executor process --ledger results $(ROBUSTNESS_ARGS)

fit%: $(STAMP)  ## refit a paper's workload models (its package's python -m; FIT_ARGS passed on): fit1 S-Clock, fit4 OLTP
	$(PY) -m flashrepro.papers fit $* $(FIT_ARGS)

# Headless Chromium first (`make browser`; where it cannot be installed the run goes on and says so before and
# after pytest: the report's browser test is then skipped, or fails with FLASHREPRO_REQUIRE_BROWSER=1).
# The notebooks (nbval) go first: the longest files, handed out at the start, leave no worker a long tail alone.
PYTEST := $(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile --max-worker-restart=0 build/nbval tests --nbval-lax
test: $(STAMP)  ## lint, Chromium for the report's test, the kernels compiled on every core, then every test and notebook
	$(PY) -m ruff check lib tests benchmarks
	@$(MAKE) --no-print-directory browser || $(BROWSER_WARNING)
	@$(BYTECODE)
	@rm -rf build/nbval
	@$(PY) -m flashrepro.notebooks nbval-prepare build/nbval
	$(WARM)
	@echo "$(PYTEST)"; $(PYTEST); rc=$$?; ( $(HAVE_BROWSER) ) || $(BROWSER_WARNING); exit $$rc

lint: $(STAMP)
	$(PY) -m ruff check lib tests benchmarks

bench: $(STAMP)  ## kernel throughput vs libCacheSim, FTL host writes/s, trace reading and memory -> results/bench.csv
	@$(BYTECODE)
	$(PY) benchmarks/bench_kernels.py

# Where each FTL victim rule's time goes (Linux perf; compiles the FTL afresh so that perf can name its functions):
# samples per compiled function on make bench's FTL stream -> results/ftl_profile.csv, rendered by make docs.
profile-ftl: $(STAMP)  ## CPU samples per compiled FTL function, each rule under both triggers (needs perf) -> results/ftl_profile.csv
	$(PY) benchmarks/profile_ftl.py

lab: $(STAMP)  ## JupyterLab on notebooks/ with the package importable
	$(VENV)/bin/jupyter lab notebooks/ $(if $(filter 0,$(shell id -u)),--allow-root)

nbval-refresh: $(STAMP)  ## store the scale="ci" outputs of the checked cells in notebooks/
	$(PY) -m flashrepro.notebooks nbval-refresh

clean:  ## remove generated files only (keeps .venv and data/raw)
	rm -rf build data/interim .hypothesis
	find results figures -mindepth 1 ! -name .gitkeep -delete
	find lib tests benchmarks -name __pycache__ -type d -prune -exec rm -rf {} +
