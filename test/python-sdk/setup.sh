#!/usr/bin/env bash
# Makes the Python that test/e2e/python-sdk.test.ts runs the firecrawl-py and LangChain suites with:
# a virtual environment outside the repository holding the SDK's dependencies and
# langchain-community, all from the package index. The SDK itself is not installed: the e2e test
# puts its source on PYTHONPATH (TRAWL_FIRECRAWL_PY_SRC), and none of its code is committed here.
#
#   test/python-sdk/setup.sh SDK_SOURCE [VENV]
#
# SDK_SOURCE  the folder holding the SDK's `firecrawl` package and pyproject.toml: apps/python-sdk
#             of a snapshot of the public repository firecrawl/firecrawl (or a fork of it).
#             Tried: 4.38.0, at upstream commit ca0be9b7d91eb9b48d3430f5678211f0d47e1d90 (the newest
#             snapshot to be had here; the one of firecrawl/firecrawl itself stops at 3.3.2).
# VENV        where the environment goes; /work/pyenv by default.
#
# Then, from the repository:
#   TRAWL_FIRECRAWL_PY_SRC=SDK_SOURCE TRAWL_FIRECRAWL_PY_PYTHON=VENV/bin/python \
#     npx vitest run test/e2e/python-sdk.test.ts
set -euo pipefail

source_dir=${1:?usage: setup.sh SDK_SOURCE [VENV]}
venv=${2:-/work/pyenv}
if [[ ! -f "$source_dir/firecrawl/__init__.py" || ! -f "$source_dir/pyproject.toml" ]]; then
  echo "setup.sh: $source_dir holds no firecrawl package and pyproject.toml" >&2
  exit 1
fi

python3 -m venv "$venv"
py="$venv/bin/python"
# This kind of machine reaches no Python index but its local copy: naming it spares pip minutes of
# retries against the default index for every package.
if [[ -d /opt/pypi/simple && -z "${PIP_INDEX_URL:-}" ]]; then
  export PIP_INDEX_URL=file:///opt/pypi/simple
fi

# The SDK's own dependencies, as its pyproject.toml lists them.
mapfile -t sdk_deps < <("$py" -c '
import sys, tomllib
print("\n".join(tomllib.load(open(sys.argv[1], "rb"))["project"]["dependencies"]))
' "$source_dir/pyproject.toml")
"$py" -m pip install --quiet "${sdk_deps[@]}"

# LangChain's FireCrawlLoader lives in langchain-community. When the index lacks what it declares
# (this machine's has neither langchain-classic, declared by langchain-community 0.4, nor
# langchain-protocol, declared by langchain-core 1.6), both go in without their declared
# dependencies and with those the loader's import path needs: the loader imports only
# langchain_core.documents and .document_loaders, which use neither package.
if ! "$py" -m pip install --quiet langchain-community; then
  echo "setup.sh: installing langchain-core and langchain-community without their missing dependencies" >&2
  "$py" -m pip install --quiet langsmith httpx jsonpatch packaging pydantic pyyaml tenacity \
    typing-extensions uuid-utils requests aiohttp
  "$py" -m pip install --quiet --no-deps langchain-core langchain-community
fi

PYTHONPATH="$source_dir" "$py" -c '
import firecrawl, importlib.metadata as m
from langchain_community.document_loaders import FireCrawlLoader
print("firecrawl-py", firecrawl.__version__, "| langchain-community", m.version("langchain-community"),
      "| langchain-core", m.version("langchain-core"))
'
echo "TRAWL_FIRECRAWL_PY_SRC=$source_dir TRAWL_FIRECRAWL_PY_PYTHON=$py"
