#!/usr/bin/env bash
# The journal is a contract of its own, not the API's: in a copy of the code
# this rewords a reason the API shows and renames a field of the API's
# events, and there replays a journal this code wrote (and the journal kept
# from before the journal had its own events). Both must replay byte for byte.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "journal contract: a journal written by this code"
CROUPIER_JOURNAL_OUT="$work/journal.jsonl" cargo test -q --locked -p croupier-server --test journal_contract \
  a_journal_of_every_kind >/dev/null
test -s "$work/journal.jsonl"

echo "journal contract: a copy whose API rewords a reason and renames a field"
mkdir "$work/copy"
git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$work/copy"
views="$work/copy/crates/server/src/casino/views.rs"
events="$work/copy/crates/server/src/api/event.rs"
sed -i 's/annulled as a collective bet (european-casino 3.7)/annulled: these bets were pooled (european-casino 3.7)/' "$views"
sed -i 's|^        /// Why, in words.$|        /// Why, in words.\n        #[serde(rename = "explanation")]|' "$events"
grep -q 'these bets were pooled' "$views" || { echo "the reason was not reworded" >&2; exit 1; }
grep -q 'rename = "explanation"' "$events" || { echo "the field was not renamed" >&2; exit 1; }

echo "journal contract: the copy replays what this code wrote"
(cd "$work/copy" && CARGO_TARGET_DIR="$root/target" CROUPIER_JOURNAL_IN="$work/journal.jsonl" \
  cargo test -q --locked -p croupier-server --test journal_contract --test old_journal)
echo "journal contract: held"
