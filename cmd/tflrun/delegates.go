package main

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/cmd/tflrun/internal/cli"
)

// delegateFlagNames are benchmark_model's delegate and delegate-option
// flags (TensorFlow Lite's tools/delegates registrar), by kind. tflrun
// has no delegates: it accepts them so that benchmark_model command lines
// run unchanged, and says that it ignored them.
var delegateFlagNames = struct{ bools, strings, ints []string }{
	bools: []string{
		"use_xnnpack", "xnnpack_force_fp16",
		"use_gpu", "gpu_precision_loss_allowed", "gpu_experimental_enable_quant", "gpu_inference_for_sustained_speed",
		"use_nnapi", "disable_nnapi_cpu", "nnapi_allow_fp16", "nnapi_allow_dynamic_dimensions", "nnapi_use_burst_mode",
		"use_hexagon", "hexagon_profiling",
		"use_coreml",
	},
	strings: []string{
		"gpu_backend", "gpu_wait_type",
		"nnapi_execution_preference", "nnapi_execution_priority", "nnapi_accelerator_name",
		"hexagon_lib_path",
		"external_delegate_path", "external_delegate_options", "stable_delegate_loader_settings",
		"delegate_serialize_dir", "delegate_serialize_token",
	},
	ints: []string{"max_delegated_partitions", "min_nodes_per_partition", "coreml_version"},
}

// delegateFlags records the delegate flags given.
type delegateFlags struct {
	set map[string]string
}

// ignoredValue is a flag.Value that checks its value's syntax (bool, int
// or any string) and records it.
type ignoredValue struct {
	d    *delegateFlags
	name string
	kind string
	val  string
}

func (v *ignoredValue) String() string { return v.val }

func (v *ignoredValue) Set(s string) error {
	switch v.kind {
	case "bool":
		if _, err := strconv.ParseBool(s); err != nil {
			return fmt.Errorf("want true or false")
		}
	case "int":
		if _, err := strconv.Atoi(s); err != nil {
			return fmt.Errorf("want an integer")
		}
	}
	v.val = s
	v.d.set[v.name] = s
	return nil
}

// IsBoolFlag lets a boolean delegate flag stand alone ("--use_gpu").
func (v *ignoredValue) IsBoolFlag() bool { return v.kind == "bool" }

func (d *delegateFlags) define(f *cli.FlagSet) {
	d.set = map[string]string{}
	add := func(kind string, names []string) {
		for _, n := range names {
			f.Var(&ignoredValue{d: d, name: n, kind: kind}, n, "benchmark_model delegate flag: accepted and ignored (tflrun has no delegates)")
		}
	}
	add("bool", delegateFlagNames.bools)
	add("string", delegateFlagNames.strings)
	add("int", delegateFlagNames.ints)
}

// notes says which delegate flags were ignored, one line each.
func (d *delegateFlags) notes() []string {
	names := make([]string, 0, len(d.set))
	for n := range d.set {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []string
	for _, n := range names {
		v := d.set[n]
		if v == "" {
			v = "true"
		}
		out = append(out, fmt.Sprintf("--%s=%s ignored: tflrun has no delegates; every operator runs on tflrun's own CPU kernels.", n, v))
	}
	return out
}

// fusedFloatNote says that --fused_float changes nothing at the ISA
// level in use (see arch.GemmF32Fuses).
func fusedFloatNote() string {
	return fmt.Sprintf("--fused_float has no effect at ISA level %s: only the AVX-512 float kernels have a fused form (NEON's always fuse)", arch.Current())
}
