#!/usr/bin/env bash
# Check that imports run one way between the rooms of src/ (ARCHITECTURE.md):
#   model < redact < {fetch, content} < settings < lookup < frontends
# A room may use only rooms below it (fetch and content do not use each other).
# Prints each offending line and exits 1 if there is one.
set -euo pipefail
cd "$(dirname "$0")/.."
rank() {
  case "$1" in
    model) echo 0 ;; redact) echo 1 ;; fetch|content) echo 2 ;;
    settings) echo 3 ;; lookup) echo 4 ;; frontends) echo 5 ;; *) echo -1 ;;
  esac
}
bad=0
while IFS= read -r file; do
  rel=${file#src/}
  room=${rel%%/*}; room=${room%.rs}
  r=$(rank "$room")
  [ "$r" -lt 0 ] && continue
  # Only non-test code: stop at the first #[cfg(test)].
  while IFS= read -r hit; do
    line=${hit%%:*}; used=${hit#*crate::}; used=${used%%[^a-z_]*}
    u=$(rank "$used")
    [ "$u" -lt 0 ] || [ "$used" = "$room" ] && continue
    if [ "$u" -ge "$r" ]; then
      echo "$file:$line: $room uses $used"
      bad=1
    fi
  done < <(awk '/#\[cfg\(test\)\]/{exit} {print NR": "$0}' "$file" | grep -o '^[0-9]*: .*crate::[a-z_]*' | sed -E 's/^([0-9]+): .*(crate::[a-z_]+).*/\1:\2/' || true)
done < <(find src -name '*.rs' | sort)
exit $bad
