#!/usr/bin/env bash
# Installs what ranker needs on a Debian machine: Link Grammar from Debian, the project from source,
# and for the browser tests of ranker serve Debian's chromium and chromium-driver (Selenium comes
# with the test extra).
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq python3-link-grammar chromium chromium-driver >/dev/null
# The build backend of pyproject.toml, installed here so that the wheel test builds without a download.
python3 -m pip install -q 'setuptools>=70.1'
python3 -m pip install -q -e '.[test]'
