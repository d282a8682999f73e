# The course kit's commands. `make demo` and `make test` set everything up themselves:
# Debian packages (as root; otherwise they stop and name the apt-get line), the Python
# environment in .venv, and the sandboxed grading kernel.
PY ?= /usr/bin/python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
RUN := PATH=$(CURDIR)/$(BIN):$$PATH

.PHONY: env system demo test test-latest check lint release clean hub

# Debian packages: the sandbox, the browser tests, the PostgreSQL tests. Installed when
# missing and we are root; otherwise stop with the exact `sudo apt-get install` line.
system:
	@./.ci/system-packages

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	# requirements.txt is the whole lock, so nothing unlisted comes in (see CONTRIBUTING.md)
	$(BIN)/pip install -q --no-deps -r requirements.txt
	$(BIN)/pip check
	$(BIN)/pip install -q --no-deps -e .
	# the package's bytecode, which pip writes for every other package: every grading process
	# and Jupyter server (other users' too, who cannot write here) then skips compiling it
	$(BIN)/python -m compileall -q attnkit
	# an editable install leaves out the package's data files: formgrader's escaping on by hand
	install -D -m 0644 deploy/jupyterhub/jupyter/jupyter_server_config.d/attnkit.json \
		$(VENV)/etc/jupyter/jupyter_server_config.d/attnkit.json
	touch $(STAMP)

env: system $(STAMP)
	$(BIN)/attnkit install-kernels

release: env
	$(RUN) $(BIN)/attnkit release

demo: env
	$(RUN) $(BIN)/attnkit demo

# The JupyterHub proxy, pinned in package.json / package-lock.json.
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

# A JupyterHub on 127.0.0.1:8000 with demo users (created as root; logins printed) and ps1
# released: deploy/jupyterhub's configs, as the README's "Deploying on JupyterHub" describes.
hub: env node_modules/.installed
	$(RUN) $(BIN)/python -m attnkit.deploy.site

# Two workers (pytest-xdist), each taking whole files, so a module's fixtures are built once.
test: env node_modules/.installed
	$(RUN) $(BIN)/python -m pytest -q -n 2 --dist loadfile --durations=25 $(PYTEST_ARGS)

# The newest releases pyproject.toml's bounds allow, in a fresh .venv-latest: the fast
# tier, `attnkit demo` and one grading through stock nbgrader (.ci/test-latest).
test-latest: system
	./.ci/test-latest

# The fast tier, opt-in: unit and consistency tests, no kernels, browser or database server.
# Needs only the Python environment, so it also runs on a machine without the Debian packages.
check: $(STAMP)
	$(RUN) $(BIN)/python -m pytest -q -n 2 -m "not slow and not browser and not postgres and not kernel" $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check attnkit tests benchmarks

clean:
	rm -rf submitted autograded feedback gradebook.db reports exports .attnkit node_modules .venv-latest
