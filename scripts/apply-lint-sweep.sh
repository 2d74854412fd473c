#!/usr/bin/env bash
# The Biome sweep: safe fixes and the reformat, then the few unsafe fixes reviewed as mechanical for this code,
# then a clean check. Re-runnable: on clean code it changes nothing. Run from the repository root after
# `npm install` has brought @biomejs/biome (biome.jsonc is the configuration).
set -euo pipefail
cd "$(dirname "$0")/.."
biome() { node_modules/.bin/biome "$@"; }

# 1. Safe fixes (lint) and the formatter, in one pass.
biome check --write . || true
# 2. Unsafe fixes whose rewrite is the same meaning for this code (reviewed on the first sweep):
#    a + 'b' -> template; `!t || t.x !== y` -> `t?.x !== y`; unused parameter -> `_name`; unused import removed;
#    `i < 0 ? 0 : i` -> Math.max; `o['key']` -> o.key.
biome lint --write --unsafe \
  --only=style/useTemplate \
  --only=complexity/useOptionalChain \
  --only=correctness/noUnusedFunctionParameters \
  --only=correctness/noUnusedImports \
  --only=complexity/useMathMinMax \
  --only=complexity/useLiteralKeys \
  . || true
# 3. Reformat what the unsafe fixes left long or short.
biome format --write .
# 4. What is left needs a hand edit (or a reasoned rule exception in biome.jsonc).
biome check .
