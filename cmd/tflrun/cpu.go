package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/cmd/tflrun/internal/cli"
	"github.com/tflrun/tflrun/internal/parallel"
)

func newCPUCmd(stdout, stderr io.Writer) *cli.Command {
	var asJSON, levelsOnly bool
	var isa string
	cmd := &cli.Command{
		Name:  "cpu",
		Usage: "cpu [flags]",
		Short: "Show the CPU features tflrun detected and the kernels it chose",
		Long: `Cpu prints what tflrun found out about this CPU (model, the SIMD features its
kernels can use, cache sizes), the instruction-set levels it can run at, the
level in use, the number of threads --num_threads -1 gives (the cores the
process may use: its CPU affinity mask, bounded by GOMAXPROCS, which follows
the cgroup CPU quota), and for every vector primitive the implementation chosen and
the ones available.

The level is the best one the CPU offers unless the environment variable
TFLRUN_ISA (generic, avx2, avx512, neon, neon-dotprod, neon-i8mm) forces a
lower one; --isa shows the choice another level would make. --levels prints only the
usable level names, one per line (for scripts).`,
		Args:  exactArgs("tflrun cpu", 0, "no arguments"),
		Flags: cli.NewFlagSet(),
		Run: func(args []string) error {
			if isa != "" {
				if err := arch.UseName(isa); err != nil {
					return usageErrorf("--isa: %v", err)
				}
			}
			in := arch.Describe()
			if levelsOnly {
				for _, l := range in.Levels {
					fmt.Fprintln(stdout, l)
				}
				return nil
			}
			if asJSON {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(cpuJSON(in))
			}
			writeCPUText(stdout, in)
			return nil
		},
	}
	f := cmd.Flags
	f.BoolVar(&asJSON, "json", false, "print the description as JSON")
	f.BoolVar(&levelsOnly, "levels", false, "print only the usable ISA levels, one per line")
	f.StringVar(&isa, "isa", "", "show the implementations chosen at this level instead of the current one")
	return cmd
}

// warnISA prints the TFLRUN_ISA problem, if any, as a warning.
func warnISA(stderr io.Writer) {
	if err := arch.ISAError(); err != nil {
		fmt.Fprintf(stderr, "tflrun: warning: %v\n", err)
	}
}

func writeCPUText(w io.Writer, in arch.Info) {
	brand := in.Brand
	if brand == "" {
		brand = "unknown model"
	}
	if in.Vendor != "" {
		brand += " (" + in.Vendor + ")"
	}
	fmt.Fprintf(w, "cpu:        %s, %s\n", brand, in.GOARCH)
	feats := make([]string, len(in.Features))
	for i, f := range in.Features {
		feats[i] = f.String()
	}
	if len(feats) == 0 {
		feats = []string{"none that tflrun uses"}
	}
	fmt.Fprintf(w, "features:   %s\n", strings.Join(feats, " "))
	if in.CacheSource == "" {
		fmt.Fprintf(w, "caches:     unknown\n")
	} else {
		fmt.Fprintf(w, "caches:     L1d %s, L2 %s, L3 %s, line %d B (from %s)\n",
			sizeText(in.L1D), sizeText(in.L2), sizeText(in.L3), in.CacheLine, in.CacheSource)
	}
	levels := make([]string, len(in.Levels))
	for i, l := range in.Levels {
		levels[i] = l.String()
	}
	note := ""
	if in.PureGo {
		note = " (built with -tags purego)"
	}
	fmt.Fprintf(w, "levels:     %s; best %s%s\n", strings.Join(levels, " "), in.Best, note)
	fmt.Fprintf(w, "in use:     %s\n", arch.Summary())
	fmt.Fprintf(w, "threads:    %d usable (--num_threads -1): %d CPUs in the affinity mask, GOMAXPROCS %d\n",
		parallel.Threads(-1), runtime.NumCPU(), runtime.GOMAXPROCS(0))
	if in.ISAError != nil {
		fmt.Fprintf(w, "TFLRUN_ISA: %v\n", in.ISAError)
	}
	fmt.Fprintf(w, "primitives:\n")
	for _, p := range in.Primitives {
		var avail []string
		for _, im := range p.Impls {
			if im.Usable {
				avail = append(avail, im.Name)
			}
		}
		fmt.Fprintf(w, "  %-19s %-11s (usable: %s)\n", p.Name, p.Impl, strings.Join(avail, ", "))
	}
}

// sizeText prints a cache size in KiB or MiB; 0 is unknown.
func sizeText(n int) string {
	switch {
	case n <= 0:
		return "?"
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	default:
		return fmt.Sprintf("%d KiB", n>>10)
	}
}

// cpuJSON is arch.Info with names instead of enum values.
func cpuJSON(in arch.Info) any {
	type impl struct {
		Name   string   `json:"name"`
		Level  string   `json:"level"`
		Needs  []string `json:"needs,omitempty"`
		Usable bool     `json:"usable"`
	}
	type prim struct {
		Name  string `json:"name"`
		Impl  string `json:"impl"`
		Impls []impl `json:"impls"`
	}
	names := func(fs []arch.Feature) []string {
		s := make([]string, len(fs))
		for i, f := range fs {
			s[i] = f.String()
		}
		return s
	}
	out := struct {
		GOARCH      string   `json:"goarch"`
		Vendor      string   `json:"vendor"`
		Brand       string   `json:"brand"`
		Features    []string `json:"features"`
		CacheLine   int      `json:"cache_line"`
		L1D         int      `json:"l1d"`
		L2          int      `json:"l2"`
		L3          int      `json:"l3"`
		CacheSource string   `json:"cache_source"`
		PureGo      bool     `json:"purego"`
		Levels      []string `json:"levels"`
		Best        string   `json:"best"`
		Level       string   `json:"level"`
		Summary     string   `json:"summary"`
		Threads     int      `json:"threads"`
		AffinityCPU int      `json:"affinity_cpus"`
		GOMAXPROCS  int      `json:"gomaxprocs"`
		ISAError    string   `json:"isa_error,omitempty"`
		Primitives  []prim   `json:"primitives"`
	}{
		GOARCH: in.GOARCH, Vendor: in.Vendor, Brand: in.Brand, Features: names(in.Features),
		CacheLine: in.CacheLine, L1D: in.L1D, L2: in.L2, L3: in.L3, CacheSource: in.CacheSource,
		PureGo: in.PureGo, Best: in.Best.String(), Level: in.Level.String(), Summary: arch.Summary(),
		Threads: parallel.Threads(-1), AffinityCPU: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
	}
	for _, l := range in.Levels {
		out.Levels = append(out.Levels, l.String())
	}
	if in.ISAError != nil {
		out.ISAError = in.ISAError.Error()
	}
	for _, p := range in.Primitives {
		q := prim{Name: p.Name, Impl: p.Impl}
		for _, im := range p.Impls {
			q.Impls = append(q.Impls, impl{Name: im.Name, Level: im.Level.String(), Needs: names(im.Needs), Usable: im.Usable})
		}
		out.Primitives = append(out.Primitives, q)
	}
	return out
}
