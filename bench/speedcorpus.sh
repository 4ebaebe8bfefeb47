#!/bin/sh
# speedcorpus.sh: time tflrun against native TensorFlow Lite (XNNPACK on)
# on a folder of models and print one table row per model: file size,
# both medians and their ratio, both peak RSS (VmHWM) and their ratio.
#
# usage: bench/speedcorpus.sh [MODEL_OR_DIR...]
#
# Without arguments: every .tflite under $SHARED_MODELS (../shared/models)
# plus the corpus models named in bench/speedcorpus.list, found under
# $TFLRUN_TFLITE_CORPUS (../corpus/tflite); missing ones are skipped and
# counted. A DIR argument means every .tflite under it.
#
# Environment: TFLRUN (tflrun binary; default: built from this tree into
# a temporary dir), TFLITE_REF (default /work/tflite_ref/bin/tflite_ref,
# see ../shared/tools/tflite_ref.md), N timed invokes per round (50),
# THREADS (1), ROUNDS alternating rounds (3), TFLRUN_FLAGS (more flags
# for tflrun bench, such as --fused_float). Each round runs `tflrun
# bench` then `tflite_ref --bench` with 5 warm-up invokes, as
# ../shared/tools/tflite_compare --bench does; a median is the median of
# the rounds' medians, a peak RSS the largest of the rounds' (the
# process's VmHWM; each round is a fresh process). tflrun bench times
# runs in whole microseconds, as benchmark_model does: for models whose
# median is below 50 us both sides' means are compared instead (marked
# * after the ratio). Correctness is
# tflite_compare's job, not this script's. Speed ratios are only as good
# as the machine is quiet: the load average is printed with the table.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
N=${N:-50}
THREADS=${THREADS:-1}
ROUNDS=${ROUNDS:-3}
TFLRUN_FLAGS=${TFLRUN_FLAGS:-}
SHARED_MODELS=${SHARED_MODELS:-$here/../shared/models}
TFLRUN_TFLITE_CORPUS=${TFLRUN_TFLITE_CORPUS:-$here/../corpus/tflite}
TFLITE_REF=${TFLITE_REF:-/work/tflite_ref/bin/tflite_ref}
if [ ! -x "$TFLITE_REF" ]; then
	echo "speedcorpus: no TensorFlow Lite runner at $TFLITE_REF (set TFLITE_REF)" >&2
	exit 2
fi
if [ -z "${TFLRUN:-}" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	(cd "$here" && go build -o "$tmp/tflrun" ./cmd/tflrun)
	TFLRUN=$tmp/tflrun
fi

models=$(mktemp)
trap 'rm -f "$models"; [ -n "${tmp:-}" ] && rm -rf "$tmp"' EXIT
missing=0
if [ $# -eq 0 ]; then
	[ -d "$SHARED_MODELS" ] && find "$SHARED_MODELS" -name '*.tflite' | sort >>"$models"
	while read -r name; do
		case $name in '' | '#'*) continue ;; esac
		if [ -f "$TFLRUN_TFLITE_CORPUS/$name" ]; then
			echo "$TFLRUN_TFLITE_CORPUS/$name" >>"$models"
		else
			missing=$((missing + 1))
		fi
	done <"$here/bench/speedcorpus.list"
else
	for a in "$@"; do
		if [ -d "$a" ]; then find "$a" -name '*.tflite' | sort >>"$models"; else echo "$a" >>"$models"; fi
	done
fi

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); N=$N threads=$THREADS rounds=$ROUNDS${TFLRUN_FLAGS:+ tflrun flags $TFLRUN_FLAGS}, TFLite XNNPACK on"
printf '%-52s %8s %11s %11s %6s %9s %9s %6s\n' model size_kb tflrun_us tflite_us ratio tflrun_mb tflite_mb rss
while read -r m; do
	ours="" theirs="" oursavg="" theirsavg="" ourrss=0 theirrss=0 err=""
	r=0
	while [ $r -lt "$ROUNDS" ]; do
		r=$((r + 1))
		out=$("$TFLRUN" bench --graph="$m" --num_runs="$N" --min_secs=0 --warmup_runs=5 --warmup_min_secs=0 --num_threads="$THREADS" $TFLRUN_FLAGS 2>&1) || { err="tflrun failed"; break; }
		med=$(echo "$out" | sed -n 's/.*Inference (avg).*//; s/.*count=.* median=\([0-9.]*\).*/\1/p' | tail -1)
		avg=$(echo "$out" | sed -n 's/.*count=.* avg=\([0-9.e+]*\) .*median=.*/\1/p' | tail -1)
		rss=$(echo "$out" | sed -n 's/.*Peak resident set size (MB): \([0-9.]*\).*/\1/p')
		ours="$ours $med"
		oursavg="$oursavg $avg"
		ourrss=$(echo "$ourrss ${rss:-0}" | awk '{print ($2 > $1) ? $2 : $1}')
		out=$("$TFLITE_REF" "$m" --bench "$N" --warmup 5 --threads "$THREADS" --quiet 2>&1) || { err="tflite failed"; break; }
		med=$(echo "$out" | sed -n 's/.*median_us=\([0-9.]*\).*/\1/p' | tail -1)
		mean=$(echo "$out" | sed -n 's/.*mean_us=\([0-9.]*\).*/\1/p' | tail -1)
		rss=$(echo "$out" | sed -n 's/.*peak_rss_kb=\([0-9]*\).*/\1/p' | tail -1)
		theirs="$theirs $med"
		theirsavg="$theirsavg $mean"
		theirrss=$(echo "$theirrss ${rss:-0}" | awk '{r = $2 / 1024; print (r > $1) ? r : $1}')
	done
	name=$(echo "$m" | sed "s|^$TFLRUN_TFLITE_CORPUS/||; s|^$SHARED_MODELS/|shared/|; s|.*/corpus/tflite/||; s|.*/shared/models/|shared/|")
	kb=$(( $(stat -c %s "$m") / 1024 ))
	if [ -n "$err" ]; then
		printf '%-52s %8d %s\n' "$name" "$kb" "$err"
		continue
	fi
	echo "$name $kb $ourrss $theirrss |$ours |$theirs |$oursavg |$theirsavg" | awk -F'|' '
	function median(s,   a, n, i, j, t) {
		n = split(s, a, " ")
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	{
		split($1, h, " ")
		o = median($2); t = median($3); tag = ""
		if (o < 50) {
			# tflrun bench, as benchmark_model, times runs in whole
			# microseconds: below 50 us its median is too coarse, so
			# the means of both (the rounds'"'"' medians of them) are
			# compared instead, marked with a *.
			o = median($4); t = median($5); tag = "*"
		}
		printf "%-52s %8d %11.1f %11.1f %6.2f%s %9.1f %9.1f %6.2f\n", h[1], h[2], o, t, (t > 0 ? o / t : 0), tag, h[3], h[4], (h[4] > 0 ? h[3] / h[4] : 0)
	}'
done <"$models"
[ "$missing" -eq 0 ] || echo "# $missing corpus models of bench/speedcorpus.list not found under $TFLRUN_TFLITE_CORPUS (skipped)"
