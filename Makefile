# The course kit's commands. `make demo` and `make test` set everything up themselves.
PY ?= /usr/bin/python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: env system demo test lint release clean

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q -r requirements.txt
	$(BIN)/pip install -q --no-deps -e .
	touch $(STAMP)

env: $(STAMP)
	$(BIN)/attnkit install-kernels

# Debian packages the sandbox, the browser tests and the PostgreSQL tests need (root).
system:
	./.ci/system-packages

release: env
	PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/attnkit release

demo: env
	PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/attnkit demo

test: env
	PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/python -m pytest -q $(PYTEST_ARGS)

lint: env
	$(BIN)/ruff check attnkit tests benchmarks

clean:
	rm -rf submitted autograded feedback gradebook.db reports exports .attnkit
