//go:build ignore

// measure_threads times Invoke of each model given at 1 thread and at
// --threads threads, interleaved (a round of each count in turn, so load
// on a shared machine hits both alike), and prints per model the median
// and best wall time per Invoke, the process CPU time per Invoke, and
// the wall-time speed-up (1-thread median / N-thread median, and best /
// best). Inputs are left zero. Run it from the interpreter directory:
//
//	go run measure_threads.go -threads 2 -rounds 30 [-minwork N] [-tune=false] ../../shared/models/vww_96/vww_96_int8.tflite ...
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/tflrun/tflrun/internal/parallel"
	"github.com/tflrun/tflrun/interpreter"
)

func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		log.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func main() {
	threads := flag.Int("threads", 2, "thread count compared with 1")
	rounds := flag.Int("rounds", 30, "rounds per thread count")
	budget := flag.Duration("round", 100*time.Millisecond, "approximate duration of one round")
	minWork := flag.Int("minwork", parallel.MinWork, "work threshold of a split (parallel.SetMinWork)")
	tune := flag.Bool("tune", true, "time each split site both ways and split where faster (parallel.SetTuning)")
	flag.Parse()
	parallel.SetMinWork(*minWork)
	parallel.SetTuning(*tune)
	fmt.Printf("%-34s %10s %10s %10s %10s %8s %8s %9s %9s\n", "model", "med@1 µs", "best@1", "med@N", "best@N", "med×", "best×", "cpu@1 µs", "cpu@N")
	for _, path := range flag.Args() {
		m, err := interpreter.Load(path)
		if err != nil {
			log.Fatal(err)
		}
		its := make([]*interpreter.Interpreter, 2)
		for i, t := range []int{1, *threads} {
			it, err := interpreter.New(m, &interpreter.Options{NumThreads: t})
			if err != nil {
				log.Fatal(err)
			}
			if err := it.AllocateTensors(); err != nil {
				log.Fatal(err)
			}
			its[i] = it
		}
		// Calibrate the invokes per round on one thread.
		start := time.Now()
		n := 0
		for time.Since(start) < *budget/4 {
			its[0].Invoke()
			n++
		}
		per := max(1, int(int64(n)*4*int64(*budget/4)/int64(time.Since(start)+1))/4)
		walls := [2][]float64{}
		cpus := [2]time.Duration{}
		for r := 0; r < *rounds; r++ {
			for i, it := range its {
				c0, t0 := cpuNow(), time.Now()
				for k := 0; k < per; k++ {
					if err := it.Invoke(); err != nil {
						log.Fatal(err)
					}
				}
				walls[i] = append(walls[i], float64(time.Since(t0).Microseconds())/float64(per))
				cpus[i] += cpuNow() - c0
			}
		}
		med := func(v []float64) float64 { s := slices.Clone(v); slices.Sort(s); return s[len(s)/2] }
		best := func(v []float64) float64 { return slices.Min(v) }
		invokes := float64(*rounds * per)
		fmt.Printf("%-34s %10.0f %10.0f %10.0f %10.0f %8.2f %8.2f %9.0f %9.0f\n", filepath.Base(path),
			med(walls[0]), best(walls[0]), med(walls[1]), best(walls[1]),
			med(walls[0])/med(walls[1]), best(walls[0])/best(walls[1]),
			float64(cpus[0].Microseconds())/invokes, float64(cpus[1].Microseconds())/invokes)
		for _, it := range its {
			it.Close()
		}
		m.Close()
	}
	os.Exit(0)
}
