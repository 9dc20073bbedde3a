#!/usr/bin/env bash
# Fails, listing file:line, when a tracked text file dates or justifies something by an internal
# work counter ("the fifth session", "device call 4", "issue 10", ...) instead of by what a reader
# can look up: a date, a machine, a command, a bench/NOTES.md heading. Also refused: paths outside
# the repository that only its authors had (../shared/...) and the scratch directory .peer/.
#   .ci/check-words.sh              check the tracked files of this repository
#   .ci/check-words.sh --self-test  check the checker on a scratch repository (called by check-tree.sh)
# DGMAX_WORDS_SKIP="PATH ...": tracked paths left out of the check (README.md until its rewrite).
set -euo pipefail

ordinal='(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|thirtieth|(twenty|thirty)-(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth))'
# case-insensitive, one alternative per kind of counter
pattern="session|device call|\\bcall [0-9]+|\\.peer/|\\.\\./shared|\\bissue [0-9]+|\\b${ordinal}[ -](session|call|stop)s?\\b"

# Exceptions: "path<TAB>regex". On a line of that path the regex's matches are removed before the
# line is checked again, so anything else on the line still counts. Each with its reason:
exceptions=(
  # dgmax's RAII holder of one gmsh::initialize()..gmsh::finalize() span of the Gmsh library
  # (named after the library's own word for that span): not a counter.
  $'solver/mesh/gmsh_reader.cpp\tGmshSession'
)

# check_words DIR SELF: prints the offending lines of DIR's tracked text files (SELF: a path to
# leave out, the checker itself) and returns 1 if there are any.
check_words() {
  local dir=$1 self=$2
  local -a excludes=(":(exclude)$self")
  local skip
  for skip in ${DGMAX_WORDS_SKIP:-}; do excludes+=(":(exclude)$skip"); done
  local hits
  # -I: binary files are skipped; -i: any case
  hits=$(git -C "$dir" grep -I -n -i -E -e "$pattern" -- . "${excludes[@]}" || true)
  [ -z "$hits" ] && return 0
  local bad="" line file text ex ex_path ex_re stripped
  while IFS= read -r line; do
    file=${line%%:*}
    text=${line#*:}
    text=${text#*:}
    stripped=$text
    for ex in "${exceptions[@]}"; do
      ex_path=${ex%%$'\t'*}
      ex_re=${ex#*$'\t'}
      [ "$file" = "$ex_path" ] && stripped=$(printf '%s\n' "$stripped" | sed -E "s/${ex_re}//gI")
    done
    if printf '%s\n' "$stripped" | grep -qiE -e "$pattern"; then bad+="  ${line%%:*}:$(cut -d: -f2 <<<"$line")"$'\n'; fi
  done <<<"$hits"
  [ -z "$bad" ] && return 0
  echo "check-words: internal work counters in tracked files (date a result, name its machine and"
  echo "command, and cite bench/NOTES.md by its heading instead):"
  printf '%s' "$bad"
  return 1
}

self_test() {
  local tmp status=0
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  git -C "$tmp" init -q
  mkdir -p "$tmp/solver/mesh"
  printf 'Measured 2026-11-25 on the H100: `dgmax bench --order 4` (bench/NOTES.md, "Set-up time").\n' >"$tmp/clean.md"
  printf 'issue slots 36%%; it recalls 5 values; the first stopped run; a note.\n' >>"$tmp/clean.md"
  printf 'class GmshSession {};\nGmshSession gmsh_lib;\ngmsh_lib.logged_errors();\n' >"$tmp/solver/mesh/gmsh_reader.cpp"
  printf 'session\0binary' >"$tmp/blob.bin"
  git -C "$tmp" add -A
  if ! check_words "$tmp" none >/dev/null; then
    echo "check-words self-test: clean text, binary files and the exceptions were refused"
    check_words "$tmp" none || true
    status=1
  fi
  local bad
  for bad in 'in the twenty-seventh session' 'device call 5' 'see call 2' '(NOTES, twenty-fifth session)' \
    'copied to .peer/occa' 'the model of ../shared/DESIGN.md' 'issue 10' 'the fifth call' 'the third stop' \
    'this Session' 'GmshSession session; // fifth session'; do
    printf 'fine line\n%s\n' "$bad" >"$tmp/solver/mesh/gmsh_reader.cpp"
    git -C "$tmp" add -A
    local out
    if out=$(check_words "$tmp" none); then
      echo "check-words self-test: \"$bad\" was not refused"
      status=1
    elif ! grep -q '^  solver/mesh/gmsh_reader.cpp:2$' <<<"$out"; then
      echo "check-words self-test: \"$bad\" refused without its file:line; got:"
      echo "$out"
      status=1
    fi
  done
  # the skip list leaves a path out
  printf 'the fifth session\n' >"$tmp/skipped.md"
  printf 'clean\n' >"$tmp/solver/mesh/gmsh_reader.cpp"
  git -C "$tmp" add -A
  if ! DGMAX_WORDS_SKIP="skipped.md" check_words "$tmp" none >/dev/null; then
    echo "check-words self-test: DGMAX_WORDS_SKIP did not leave skipped.md out"
    status=1
  fi
  [ $status -eq 0 ] && echo "check-words self-test: passed"
  return $status
}

cd "$(dirname "$0")/.."
if [ "${1:-}" = --self-test ]; then
  self_test
else
  check_words . .ci/check-words.sh
fi
