#!/usr/bin/env bash
# extract.sh tflite|tf|tfref MIRRORS OUT: puts every row of tflite.tsv, tf.tsv
# or tfref.tsv (the TF corpus's reference .tflite files, which go in the
# same folder as tf.tsv's models) in OUT under its file column, taken from local git mirrors, and checks its
# SHA-256 against the manifest.
#
# MIRRORS holds one git directory per repository, named owner+repo (the
# layout the fetch tool leaves in /work/.mirror: owner+repo/repo, bare or
# with a .git inside; a plain bare owner+repo works too). A row's source,
# owner/repo@commit:path, is read at that commit: a file is written as is, a
# folder (a SavedModel) gets its regular data files: code kept beside the
# model (BUILD files, the .py that wrote it; see code below) is left out, as
# are symlinks and submodules, which digest in corpus_test.go ignores. A row whose blob is
# absent from the mirror (snapshots leave out files of 4 MiB and more) or is
# a Git LFS pointer is reported as missing. When the commit itself is not in
# the mirror, the path is looked up in every ref's history for a blob or
# tree with the manifest's digest.
#
# Rows already in OUT with the right digest are kept. The script prints one
# line per row (ok, extracted, MISSING, MISMATCH) and a summary, and exits 1
# when any row is not verified. It only reads the mirrors and writes OUT.
set -uo pipefail
usage="usage: extract.sh tflite|tf|tfref MIRRORS OUT"
kind=${1:?$usage}
mirrors=${2:?$usage}
out=${3:?$usage}
case $kind in
  tflite | tf | tfref) ;;
  *) echo "extract.sh: first argument must be tflite, tf or tfref" >&2; exit 2 ;;
esac
manifest="$(cd "$(dirname "$0")" && pwd)/$kind.tsv"
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
export LC_ALL=C

# digest FILE-OR-FOLDER: the sum of digest in corpus_test.go.
digest() {
  if [ -d "$1" ]; then
    (cd "$1" && find . -type f -printf '%P\n' | sort | while IFS= read -r f; do
      printf '%s\0' "$f"
      sha256sum -- "$f" | cut -c1-64 | xxd -r -p
    done) | sha256sum | cut -c1-64
  elif [ -f "$1" ]; then
    sha256sum -- "$1" | cut -c1-64
  fi
}

gitdir() {
  local d
  for d in "$mirrors/$1/repo/.git" "$mirrors/$1/repo" "$mirrors/$1/.git" "$mirrors/$1"; do
    if [ -d "$d" ] && git --git-dir="$d" rev-parse --git-dir >/dev/null 2>&1; then
      echo "$d"
      return 0
    fi
  done
  return 1
}

# put GITDIR OBJECT DEST: writes the blob or tree OBJECT (commit:path form)
# to DEST; fails naming the first blob the mirror lacks or that is an LFS
# pointer.
put() {
  local g=$1 obj=$2 dest=$3 type mode otype oid name
  if ! type=$(git --git-dir="$g" cat-file -t "$obj" 2>/dev/null); then
    if ! git --git-dir="$g" cat-file -e "${obj%%:*}^{commit}" 2>/dev/null; then
      why="commit ${obj%%:*} is not in the mirror"
    elif [ -n "$(git --git-dir="$g" ls-tree "${obj%%:*}" -- "${obj#*:}" 2>/dev/null)" ]; then
      why="${obj#*:}: absent from the snapshot (files of 4 MiB and more are left out)"
    else
      why="${obj#*:} is not in commit ${obj%%:*}"
    fi
    return 1
  fi
  rm -rf -- "$dest"
  mkdir -p -- "$(dirname "$dest")"
  if [ "$type" = blob ]; then
    blob "$g" "$obj" "$dest" "${obj#*:}" || return 1
    return 0
  fi
  [ "$type" = tree ] || { why="a $type, not a file or folder"; return 1; }
  mkdir -p -- "$dest"
  while IFS=$'\t' read -r -d '' mode_type name; do
    read -r mode otype oid <<<"$mode_type"
    [ "$otype" = blob ] || continue
    case $mode in 100644 | 100755) ;; *) continue ;; esac
    code "$name" && continue
    mkdir -p -- "$dest/$(dirname "$name")"
    blob "$g" "$oid" "$dest/$name" "${obj#*:}/$name" || return 1
  done < <(git --git-dir="$g" ls-tree -r -z "$obj")
}

blob() {
  local g=$1 oid=$2 dest=$3 what=$4 size
  if ! size=$(git --git-dir="$g" cat-file -s "$oid" 2>/dev/null) ||
    ! git --git-dir="$g" cat-file blob "$oid" >"$dest" 2>/dev/null; then
    why="$what: blob absent from the snapshot (files of 4 MiB and more are left out)"
    return 1
  fi
  if [ "$size" -lt 1024 ] && head -c 64 -- "$dest" | grep -q '^version https://git-lfs'; then
    why="$what: a Git LFS pointer ($(grep -o 'size [0-9]*' "$dest")), the content is not in the snapshot"
    return 1
  fi
}

# code NAME: whether a file inside a folder row is code kept next to the
# model (a BUILD file, the script that wrote it) rather than model data: the
# manifest's folder digests leave such files out, as the corpus keeps only
# data.
code() {
  case ${1##*/} in
    BUILD | BUILD.bazel | *.py | *.ipynb | *.sh | *.cc | *.h | *.go | *.rs | *.js) return 0 ;;
  esac
  return 1
}

# search GITDIR PATH SHA DEST: looks for PATH with digest SHA in the history
# of every ref.
search() {
  local g=$1 path=$2 sha=$3 dest=$4 c
  for c in $(git --git-dir="$g" log --all --format=%H -- "$path" 2>/dev/null); do
    if put "$g" "$c:$path" "$dest.try" 2>/dev/null && [ "$(digest "$dest.try")" = "$sha" ]; then
      rm -rf -- "$dest"
      mv -- "$dest.try" "$dest"
      found=$c
      return 0
    fi
  done
  rm -rf -- "$dest.try"
  return 1
}

declare -A col
IFS=$'\t' read -r -a header <"$manifest"
for i in "${!header[@]}"; do col[${header[$i]}]=$i; done
ok=0 bad=0
while IFS=$'\t' read -r -a f; do
  file=${f[${col[file]}]%/}
  src=${f[${col[source]}]}
  sha=${f[${col[sha256]}]}
  repo=${src%%@*}
  rest=${src#*@}
  commit=${rest%%:*}
  path=${rest#*:}
  dest=$out/$file
  if [ "$(digest "$dest")" = "$sha" ]; then
    echo "ok        $file"
    ok=$((ok + 1))
    continue
  fi
  if ! g=$(gitdir "${repo/\//+}"); then
    echo "MISSING   $file: no mirror of $repo in $mirrors"
    bad=$((bad + 1))
    continue
  fi
  why=""
  if put "$g" "$commit:$path" "$dest"; then
    got=$(digest "$dest")
    if [ "$got" = "$sha" ]; then
      echo "extracted $file"
      ok=$((ok + 1))
      continue
    fi
    why="sha256 $got at $commit, the manifest has $sha"
  fi
  found=""
  if search "$g" "$path" "$sha" "$dest"; then
    echo "extracted $file (from $found: $commit gave: $why)"
    ok=$((ok + 1))
    continue
  fi
  rm -rf -- "$dest"
  case $why in
    sha256*) echo "MISMATCH  $file: $src: $why" ;;
    *) echo "MISSING   $file: $src: $why" ;;
  esac
  bad=$((bad + 1))
done < <(tail -n +2 "$manifest")
echo "$kind: $ok verified, $bad not, in $out"
[ "$bad" -eq 0 ]
