#!/usr/bin/env bash
# Runs every shell block of README.md, CONTRIBUTING.md and docs/*.md against a fresh database
# and the sandbox (scripts/docs_check.py), with tokenctl and tokenctl-serve from BUILD_DIR.
# Usage: scripts/docs-check.sh BUILD_DIR [FILE…]
set -euo pipefail
exec python3 "$(dirname "$0")/docs_check.py" "$@"
