# Two commands do all the set-up on a fresh machine (Python 3.11 and the package registries):
#   make demo   run the bundled example server's specifications on both harnesses (Allure results in reports/)
#   make test   lint, the documentation site (strict), and the pytest suite (which runs the project's own
#               specifications on every harness and era, once), side by side
#   make test-fast  the pytest tests that start no process, on three workers (while you work)
#   make docs   the documentation site into site/ (.venv/bin/mkdocs serve: live at http://127.0.0.1:8000)
# The first use creates .venv and installs the project into it; later uses reuse it
# (and reinstall when pyproject.toml changes).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed

.PHONY: demo test test-fast lint docs features pytest bench clean

# mcpbdd requires the kit's distribution (mcpbdd-kit, on no package index) from its kit/ folder, so the first install
# brings it; the second makes it editable too, so that a change in kit/ is live (one install line cannot: pip
# refuses an editable kit beside the same folder required as a plain dependency).
$(INSTALLED): pyproject.toml kit/pyproject.toml mcpbdd/_version.py kit/mcpbdd_kit/_version.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	$(BIN)/python -m pip install --quiet --no-deps -e ./kit
	touch $(INSTALLED)

# The specifications on both harnesses, then the single-file HTML report (Allure 3 via npm, installed
# once into ~/.cache/mcpbdd). Without Node.js the specifications still run and `mcpbdd report` says
# what to install; the demo's exit status is the specifications' (0 passed, 1 failed, 2 usage error).
# The demo lets the app features skip without Chromium (its summary says why and what to install);
# `make test` requires them.
demo: $(INSTALLED)
	@status=0; $(BIN)/mcpbdd run --harness both -D mcpbdd.require= -D mcpbdd.optional=apps || status=$$?; \
	$(BIN)/mcpbdd report || echo "mcpbdd: no HTML report this time (reason above); the Allure results are in reports/allure-results"; \
	exit $$status

lint: $(INSTALLED)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-logo
	$(BIN)/mypy
	$(BIN)/check-jsonschema --builtin-schema vendor.github-workflows docs/ci/github-actions.yml
	$(BIN)/actionlint docs/ci/github-actions.yml

# The site from docs/ and mkdocs.yml, strict: a broken link or anchor, a page left out of the nav or a
# generated page that fails to build stops it. The two variables silence the banners Material and a
# plugin print about MkDocs 2.0 (mkdocs is pinned below 2 in pyproject.toml).
docs: $(INSTALLED)
	NO_MKDOCS_2_WARNING=1 DISABLE_MKDOCS_2_WARNING=true $(BIN)/mkdocs build --strict --quiet

# The specifications, one behave pass per harness and era (while you work on them). `make test` does not run this
# target: its pytest suite runs the same three passes once (`mcpbdd run --harness all`, the session fixture
# `project_run` in tests/spawning/conftest.py), and the tests that need the specifications' results read that run.
features: $(INSTALLED)
	$(BIN)/behave --format progress -D mcpbdd.harness=context
	$(BIN)/behave --format progress -D mcpbdd.harness=client
	$(BIN)/behave --format progress -D mcpbdd.harness=client -D mcpbdd.client_mode=legacy

# The pytest suite in two tiers. test-fast: every test outside tests/spawning/, in-process only (tests/conftest.py
# fails any of them that starts a process). pytest: the whole tree, tests/spawning/
# too (the tests that run behave, `mcpbdd run`, servers over stdio or HTTP and fork servers, and the project's own
# specifications). On pytest-xdist workers, on two cores (XDIST= / XDIST_FAST= run them in one process); in `pytest` a
# worker takes a whole module (its module-scoped runs are set up once), and the readers of the one specifications run
# share a worker (tests/conftest.py); the fast tier has no such fixture and takes tests one by one. Each test is bounded
# by pytest-timeout ([tool.pytest.ini_options] in pyproject.toml). `make test` runs no tool twice: mypy, lint-imports,
# check-jsonschema and actionlint run in `lint`, mkdocs in `docs`; the tests run them only on copies broken on purpose.
# More workers than cores: a test waiting on a process, a timeout or a grace period leaves its core idle, and another
# worker fills it. The whole tree on four: a fresh clone's `make test` 647 s against 703 s on three, 742 s before the
# tests' warm runs (two workers kept 1.6 of 2 cores busy, three 1.66, four 1.70; BENCHMARKS.md, "CI time, fifth
# step"). The fast tier on three: its tests wait on nothing, and each worker collects the whole tier first.
XDIST ?= -n 4
XDIST_FAST ?= -n 3

# The tests keep Python's compiled modules and pytest's rewritten test modules (__pycache__/, git-ignored) even where
# the environment says not to write them (PYTHONDONTWRITEBYTECODE, set in some containers): without them each worker
# compiles every test module and the editable mcpbdd afresh on every run (about half of its collection time), and
# every behave, `mcpbdd` and server process a test starts compiles the mcpbdd modules it imports (~0.2 s CPU each).
test-fast pytest: export PYTHONDONTWRITEBYTECODE :=
test-fast: $(INSTALLED)
	$(BIN)/python -m pytest -q $(XDIST_FAST) --ignore=tests/spawning

pytest: $(INSTALLED)
	$(BIN)/python -m pytest -q $(XDIST) $(if $(XDIST),--dist loadfile --no-loadscope-reorder)

# lint, docs and the tests side by side: the tests keep ~1.7 of the two cores busy (a test waiting on a process or a
# grace period leaves its core idle), and mypy and mkdocs (~20 s of CPU each, one core each) fill those gaps instead
# of running first while the tests wait. Output is passed on a line at a time. A failure in one stops nothing
# already running: make reports it once the others end. On a fresh machine the installs run side by side too: the
# virtual environment (pip, ~45 s) and Chromium and nginx (apt-get, ~100 s on a fresh CI image) each come before the
# tests, and neither needs the other, so `test` names none of them itself: each target below names what it needs.
test:
	@$(MAKE) --no-print-directory -j3 --output-sync=line lint docs pytest

bench: $(INSTALLED)
	$(BIN)/python bench/bench_harness.py

clean:
	rm -rf $(VENV) reports/allure-results reports/html reports/junit site

# Chromium for the app features, which this project requires (require = ["apps"] in pyproject.toml): found,
# installed as root where apt-get is (a fresh Debian CI image), or a clear failure naming the install.
.PHONY: chromium
chromium:
	@.ci/chromium

features pytest: chromium

# nginx for the tests of the protected edge behind a reverse proxy: found, installed as root where apt-get is (after
# Chromium, so the two installs never hold the package lock at once), required under CI=true, else those tests skip.
.PHONY: nginx
nginx: chromium
	@.ci/nginx

pytest: nginx
