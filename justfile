# hail's developer recipes. `just check` is the gate; `just land` publishes a change that passed it.

set shell := ["bash", "-euo", "pipefail", "-c"]

venv := justfile_directory() / ".venv/bin"
# what a macOS-shaped run covers (docs/real-clients.md "macOS-shaped runs")
macos_shaped_tests := "tests/unit/test_macos_shape.py tests/unit/test_presence.py tests/unit/test_stop_guard.py tests/unit/test_route_notes.py tests/unit/test_qwen_door.py tests/cli tests/scenarios"
macos_shaped_real := "tests/real_clients/test_native_wake.py tests/real_clients/test_busy.py tests/real_clients/test_dialog.py tests/real_clients/test_qwen.py"
export PATH := venv + ":" + env_var("PATH")

# the gate: format, lint, types, tests, tmux scenarios, Nix checks, benchmark
check: lint types test scenarios macos-shaped nix-check bench

# unit, CLI and stress tests (no tmux needed), on every core: each test has its own HOME and state
test:
    python -m pytest -q -n auto tests/unit tests/cli tests/stress

# the tmux scenario suites, each test on its own scratch server (tests/remote: two machines over a private sshd)
scenarios:
    python -m pytest -q tests/scenarios tests/remote

# end-to-end tests against the real Claude Code and Codex TUIs (downloads them from npm once)
real-clients:
    HAIL_REAL_CLIENTS=1 python -m pytest -q tests/real_clients

# native wakes, the waiter, CLI and scenarios again with hail's Python shaped like macOS's (no /proc)
macos-shaped *args:
    scripts/macos-shaped-venv
    .venv-macos/bin/python -m pytest -q -p no:cacheprovider {{macos_shaped_tests}} {{args}}

# the real-client native-wake suite with hail's interpreter shaped like macOS's
macos-shaped-real-clients *args:
    scripts/macos-shaped-venv
    HAIL_REAL_CLIENTS=1 .venv-macos/bin/python -m pytest -q -p no:cacheprovider {{macos_shaped_real}} {{args}}

# a real end-to-end run on a scratch tmux server; touches nothing of yours
demo:
    hail demo

# hook-path timings as ratios to a bare interpreter start; fails past BENCH_FACTOR
bench *args:
    python scripts/bench.py --check {{args}}

fmt:
    ruff format .
    ruff check --fix .

# format, lint, and dead code (vulture_whitelist.py lists what vulture cannot see used)
lint:
    ruff format --check .
    ruff check .
    vulture src scripts vulture_whitelist.py

types:
    mypy

# Nix: parse every .nix file, check the lock, evaluate the home-manager module (skipped without nix)
nix-check:
    scripts/nix-check

# build the Nix package and run it
build:
    nix build
    ./result/bin/hail --version

# run the gate on the change, then fast-forward main to it and push (--dry-run stops before publishing)
land *args:
    scripts/land {{args}}
