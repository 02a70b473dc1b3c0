#!/usr/bin/env bash
# Merge go.starlark.net's changes between the version recorded in
# vm/UPSTREAM and VERSION (default: latest) into vm/, three-way, with
# git merge-file. See vm/README.md for the procedure around it.
set -euo pipefail
cd "$(dirname "$0")"
new=${1:-latest}
old=$(awk '$1 == "version" {print $2}' UPSTREAM)
dir() { go mod download -json "go.starlark.net@$1" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p'; }
ver() { go mod download -json "go.starlark.net@$1" | sed -n 's/^\t"Version": "\(.*\)",$/\1/p'; }
newver=$(ver "$new")
if [ "$newver" = "$old" ]; then echo "vm/ is at $old already"; exit 0; fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
kept="starlark syntax resolve internal lib starlarkstruct starlarktest LICENSE"
for side in old new; do
	v=$old; [ $side = new ] && v=$newver
	src=$(dir "$v")
	mkdir -p "$tmp/$side"
	for k in $kept; do [ -e "$src/$k" ] && cp -r "$src/$k" "$tmp/$side/"; done
	chmod -R u+w "$tmp/$side"
	rm -rf "$tmp/$side/lib/proto/cmd"
	find "$tmp/$side" -name '*.go' -exec sed -i 's#go\.starlark\.net/#github.com/star-agent/star-agent/vm/#g' {} +
done
conflicts=()
while IFS= read -r f; do
	if [ ! -e "$tmp/old/$f" ]; then
		mkdir -p "$(dirname "$f")"; cp "$tmp/new/$f" "$f"; echo "added   $f"
	elif [ ! -e "$f" ]; then
		echo "skipped $f (we removed it; upstream changed it: check)"
	elif ! git merge-file -L ours -L "upstream $old" -L "upstream $newver" "$f" "$tmp/old/$f" "$tmp/new/$f"; then
		conflicts+=("$f")
	fi
done < <(cd "$tmp/new" && find . -type f | sed 's#^\./##' | sort)
while IFS= read -r f; do
	if [ ! -e "$tmp/new/$f" ] && [ -e "$f" ]; then
		if cmp -s "$f" "$tmp/old/$f"; then rm "$f"; echo "removed $f"; else echo "kept    $f (upstream deleted it; we changed it: check)"; fi
	fi
done < <(cd "$tmp/old" && find . -type f | sed 's#^\./##' | sort)
sed -i "s/^version .*/version $newver/; s/^commit .*/commit ${newver##*-}/" UPSTREAM
echo "vm/ merged from $old to $newver"
if [ ${#conflicts[@]} -gt 0 ]; then
	printf 'conflicts to resolve:\n'; printf '  vm/%s\n' "${conflicts[@]}"; exit 1
fi
