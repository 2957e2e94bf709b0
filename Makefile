# The only entry points. See README.md.
.PHONY: help up down demo test bench lint bootstrap frontend

# Python keeps its compiled bytecode in var/pycache (ignored by git), not beside the sources, and
# writes it even where the environment says PYTHONDONTWRITEBYTECODE: the tests and the stack start
# hundreds of Python processes (servers, workers, agents, fake phone tools, the CLI), and each
# would otherwise compile every module it imports again (about 3 s of CPU for the backend's).
export PYTHONPYCACHEPREFIX := $(CURDIR)/var/pycache
unexport PYTHONDONTWRITEBYTECODE

help:
	@echo "make up     - install what is missing, start LatencyLab and run the demo comparison"
	@echo "make down   - stop everything 'make up' started"
	@echo "make demo   - submit the demo comparison again"
	@echo "make test   - run every test suite (starts its own PostgreSQL and Redis)"
	@echo "make bench  - run the benchmarks and print their figures"
	@echo "make lint   - the lint suite of make test (infra/bin/lint.sh)"

bootstrap:
	@infra/bin/bootstrap.sh

frontend: bootstrap
	@cd frontend && npm run build --silent

up: frontend
	@.venv/bin/python infra/bin/stack.py up

down:
	@if [ -x .venv/bin/python ]; then .venv/bin/python infra/bin/stack.py down; fi

demo:
	@.venv/bin/python infra/bin/stack.py demo

test:
	@infra/bin/test-all.sh

bench: bootstrap
	@infra/bin/bench.sh

lint: bootstrap
	@infra/bin/lint.sh
