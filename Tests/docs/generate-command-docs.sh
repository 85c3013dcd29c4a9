#!/usr/bin/env bash
# Writes each command's `--help` into docs/commands.md, between its `<!-- help: ARGS -->` and
# `<!-- /help -->` markers, from the binary itself, so the reference never repeats the help by
# hand. DocsTests (swift test) fails when the page differs from what this writes.
#
# Usage: bash Tests/docs/generate-command-docs.sh [BINARY]   (default: .build/debug/tiltboard, built if missing)
# A command added to the tool needs its own marker pair in its section; the test names it.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v swift >/dev/null 2>&1 || export PATH="$PATH:/opt/swift/usr/bin"

binary=${1:-.build/debug/tiltboard}
if [ ! -x "$binary" ]; then
    [ "$#" = 0 ] || { echo "generate-command-docs: $binary is not an executable" >&2; exit 1; }
    swift build --product tiltboard >&2
fi

page=docs/commands.md
out=$(mktemp)
trap 'rm -f "$out"' EXIT
inside=0
while IFS= read -r line || [ -n "$line" ]; do
    if [ "$inside" = 1 ]; then
        [ "$line" = "<!-- /help -->" ] || continue
        inside=0
    fi
    printf '%s\n' "$line"
    case $line in
        "<!-- help: "*" -->")
            args=${line#"<!-- help: "}
            args=${args%" -->"}
            # At 80 columns, as a pipe gets it: the help's wrapping follows COLUMNS.
            # shellcheck disable=SC2086
            help=$(COLUMNS=80 "$binary" $args --help)
            printf '<details><summary><code>tiltboard %s --help</code></summary>\n\n```text\n%s\n```\n\n</details>\n' "$args" "$help"
            inside=1 ;;
    esac
done < "$page" > "$out"
[ "$inside" = 0 ] || { echo "generate-command-docs: a <!-- help: … --> in $page has no <!-- /help -->" >&2; exit 1; }
if cmp -s "$out" "$page"; then
    echo "generate-command-docs: $page is up to date"
else
    cat "$out" > "$page"
    echo "generate-command-docs: $page written"
fi
