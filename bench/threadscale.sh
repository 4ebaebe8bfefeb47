#!/bin/bash
# threadscale.sh: the speed-up of tflrun's intra-operator threading on
# each model: alternating `tflrun bench --num_threads 1` and `--num_threads
# T` runs (REPS of each, 1.5 s apiece), then the median of each side's
# medians and their ratio t1/tT. Alternating in one run keeps the ratio
# honest on a machine whose load drifts; the load average is printed
# because a busy machine flattens any speed-up.
#
# usage: bench/threadscale.sh [-t T] [-r REPS] MODEL.tflite...
# Environment: TFLRUN (tflrun binary; default: built from this tree).
set -eu
T=2
REPS=3
while getopts t:r: o; do
	case $o in
	t) T=$OPTARG ;;
	r) REPS=$OPTARG ;;
	*) echo "usage: $0 [-t T] [-r REPS] MODEL.tflite..." >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: $0 [-t T] [-r REPS] MODEL.tflite..." >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${TFLRUN:-}" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	(cd "$here" && go build -o "$tmp/tflrun" ./cmd/tflrun)
	TFLRUN=$tmp/tflrun
fi
median() { # the median of the median= fields of bench outputs
	sed -n 's/.*Inference percentiles in us: median=\([0-9.]*\).*/\1/p' | sort -n |
		awk '{v[NR]=$1} END {if (NR == 0) exit 1; print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'
}
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); threads 1 vs $T, $REPS alternations"
printf '%-50s %10s %10s %7s\n' model "t1 µs" "t$T µs" speedup
for m in "$@"; do
	one= many=
	for _ in $(seq "$REPS"); do
		one="$one$("$TFLRUN" bench --graph="$m" --num_threads 1 --min_secs 1.5 --warmup_min_secs 0.3 2>&1 | grep 'percentiles')
"
		many="$many$("$TFLRUN" bench --graph="$m" --num_threads "$T" --min_secs 1.5 --warmup_min_secs 0.3 2>&1 | grep 'percentiles')
"
	done
	a=$(printf '%s' "$one" | median) || { echo "$m: no timing from tflrun bench" >&2; continue; }
	b=$(printf '%s' "$many" | median) || { echo "$m: no timing from tflrun bench" >&2; continue; }
	printf '%-50s %10.0f %10.0f %6.2fx\n' "$(basename "$m")" "$a" "$b" "$(echo "$a / $b" | bc -l)"
done
