// Command qemuinsns measures tflrun on ARM without ARM hardware: it counts
// the guest instructions one Invoke executes under qemu user-mode
// emulation, per model, ISA level and emulated CPU, and prints each
// level's count with its ratio to portable Go (TFLRUN_ISA=generic).
//
// Instruction counts say how much work the code does, not how fast a
// real core runs it (no caches, no pipelines, every instruction counts
// one); they are what an emulator can measure exactly and repeatably.
//
// How: the program cross-compiles itself for each target (GOARCH=arm64;
// GOARCH=arm GOARM=7) and runs that binary under qemu-aarch64 or qemu-arm
// with -d nochain,exec,in_asm: qemu logs each translated block's
// instructions once and every execution of a block (chaining off, so
// none is skipped), and the count is the sum over executions of the
// block's length. The guest (the same program with -guest) loads the
// model, allocates, fills the inputs as `tflrun bench` does, invokes
// once (not counted: the first Invoke may allocate), then N times
// between two calls of marker functions whose blocks the log names
// (main.countStart, main.countStop): only the blocks executed between
// them count, so process start, loading, allocation and the warm-up are
// left out exactly (subtracting a run of N invokes from one of 2N would
// do the same at twice the emulation time). Only the thread that ran
// countStart counts (qemu numbers each guest thread's CPU in the log):
// the runtime's other threads (sysmon, idle Ms polling the network) run
// more the slower the emulation, which would make portable Go look
// worse than it is. GOMAXPROCS=1 and the garbage collector off keep the
// Invoke on that thread, and GODEBUG=asyncpreemptoff=1 keeps sysmon's
// preemption signals off it; a countStop on another thread is an error.
// Emulation with logging is slow: the default N is 1.
//
// Usage (from the repository root, with qemu-user-static installed):
//
//	go run ./bench/qemuinsns [-models vww_96_int8,dtln] [-targets arm64,arm]
//		[-cpus cortex-a53,max] [-levels generic,neon] [-n 1] [-top 0]
//
// Models are names of ../shared/models files (see -list) or paths of
// .tflite files (any model, such as a corpus one). -cpus and
// -levels keep some of the emulated CPUs and ISA levels (the ratio is to
// the last generic count of the model on the target, so one generic run
// can serve every CPU: portable Go runs the same code on each). -top K
// also prints the K functions with the most instructions per Invoke at
// each level.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"

	"github.com/tflrun/tflrun/bench"
	"github.com/tflrun/tflrun/interpreter"
)

// models are the model set: name and path under the shared
// models folder.
var models = []struct{ name, path string }{
	{"vww_96_float", "vww_96/vww_96_float.tflite"},
	{"vww_96_int8", "vww_96/vww_96_int8.tflite"},
	{"person_detect", "person_detect/person_detect.tflite"},
	{"mobilenet_v1_025_128_uint8", "mobilenet_v1_025_128_uint8/mobilenet_v1_0.25_128_quant.tflite"},
	{"micro_speech_lstm", "micro_speech_lstm/micro_speech_lstm.tflite"},
	{"dtln", "dtln/dtln_noise_suppression.tflite"},
	{"mnist_lstm", "mnist_lstm/trained_lstm.tflite"},
}

// target is one emulated architecture: its Go build settings, its qemu
// binary, the CPUs to emulate and the ISA levels to measure on each.
type target struct {
	name, goarch, goarm, qemu string
	cpus                      []cpuLevels
}

type cpuLevels struct {
	cpu    string
	levels []string
}

var targets = []target{
	{name: "arm64", goarch: "arm64", qemu: "qemu-aarch64-static", cpus: []cpuLevels{
		{"cortex-a53", []string{"generic", "neon"}},
		{"cortex-a72", []string{"generic", "neon"}},
		{"max", []string{"generic", "neon", "neon-dotprod", "neon-i8mm"}},
	}},
	{name: "arm", goarch: "arm", goarm: "7", qemu: "qemu-arm-static", cpus: []cpuLevels{
		{"cortex-a7", []string{"generic", "neon"}},
		{"cortex-a15", []string{"generic", "neon"}},
	}},
}

func main() {
	guest := flag.Bool("guest", false, "run as the emulated guest: load -model and invoke it -n times")
	model := flag.String("model", "", "guest: the model file")
	n := flag.Int("n", 1, "invokes counted per measurement (after one warm-up)")
	only := flag.String("models", "", "comma-separated model names (see -list) or .tflite paths (default: all of -list)")
	tgts := flag.String("targets", "arm64,arm", "comma-separated targets: arm64, arm")
	cpus := flag.String("cpus", "", "comma-separated qemu CPUs to keep (default: every CPU of each target)")
	levels := flag.String("levels", "", "comma-separated ISA levels to keep (default: every level of each CPU)")
	top := flag.Int("top", 0, "print the K functions with the most instructions per Invoke")
	shared := flag.String("shared", "../shared/models", "the folder of the models")
	list := flag.Bool("list", false, "list the model names and exit")
	flag.Parse()
	if *guest {
		if err := runGuest(*model, *n); err != nil {
			fmt.Fprintln(os.Stderr, "qemuinsns guest:", err)
			os.Exit(1)
		}
		return
	}
	if *list {
		for _, m := range models {
			fmt.Println(m.name)
		}
		return
	}
	if err := runHost(*shared, *only, *tgts, *cpus, *levels, *n, *top); err != nil {
		fmt.Fprintln(os.Stderr, "qemuinsns:", err)
		os.Exit(1)
	}
}

// runGuest is the emulated side: load, allocate, fill, invoke n times.
func runGuest(path string, n int) error {
	debug.SetGCPercent(-1)
	m, err := interpreter.Load(path)
	if err != nil {
		return err
	}
	it, err := interpreter.New(m, nil)
	if err != nil {
		return err
	}
	if err := it.AllocateTensors(); err != nil {
		return err
	}
	if _, err := bench.FillInputs(it, bench.DefaultSeed); err != nil {
		return err
	}
	if err := it.Invoke(); err != nil {
		return err
	}
	countStart()
	for range n {
		if err := it.Invoke(); err != nil {
			countStop()
			return err
		}
	}
	countStop()
	return nil
}

// countStart and countStop mark the counted window: parseLog counts the
// blocks executed after countStart's and up to countStop's.
//
//go:noinline
func countStart() { markerSink++ }

//go:noinline
func countStop() { markerSink++ }

var markerSink int

// pick returns the set of comma-separated names in csv, nil (keep all)
// when csv is empty.
func pick(csv string) map[string]bool {
	if csv == "" {
		return nil
	}
	keep := map[string]bool{}
	for _, s := range strings.Split(csv, ",") {
		keep[strings.TrimSpace(s)] = true
	}
	return keep
}

func runHost(shared, only, tgts, cpus, levels string, n, top int) error {
	keepModel, keepTarget, keepCPU, keepLevel := pick(only), pick(tgts), pick(cpus), pick(levels)
	// chosen: the named models of the set in its order, then every
	// .tflite path given, named by its file name.
	var chosen []struct{ name, path string }
	for _, m := range models {
		if keepModel == nil || keepModel[m.name] {
			chosen = append(chosen, struct{ name, path string }{m.name, filepath.Join(shared, m.path)})
		}
	}
	for _, p := range strings.Split(only, ",") {
		if p = strings.TrimSpace(p); strings.HasSuffix(p, ".tflite") {
			chosen = append(chosen, struct{ name, path string }{strings.TrimSuffix(filepath.Base(p), ".tflite"), p})
		}
	}
	dir, err := os.MkdirTemp("", "qemuinsns")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fmt.Printf("guest instructions per Invoke under qemu user mode (mean of %d invokes after a warm-up)\n", n)
	for _, t := range targets {
		if keepTarget != nil && !keepTarget[t.name] {
			continue
		}
		if _, err := exec.LookPath(t.qemu); err != nil {
			return fmt.Errorf("%s not found (apt-get install qemu-user-static)", t.qemu)
		}
		bin := filepath.Join(dir, "guest."+t.name)
		build := exec.Command("go", "build", "-o", bin, "./bench/qemuinsns")
		build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+t.goarch, "GOARM="+t.goarm)
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building the %s guest: %v", t.name, err)
		}
		label := t.name
		if t.goarm != "" {
			label += " GOARM=" + t.goarm
		}
		fmt.Printf("\n%s\n%-28s %-11s %-13s %15s %8s %10s\n", label, "model", "cpu", "level", "insns/Invoke", "vs Go", "(sched)")
		for _, m := range chosen {
			path := m.path
			if _, err := os.Stat(path); err != nil {
				fmt.Printf("%-28s skipped: %v\n", m.name, err)
				continue
			}
			var base float64
			for _, c := range t.cpus {
				if keepCPU != nil && !keepCPU[c.cpu] {
					continue
				}
				for _, lvl := range c.levels {
					if keepLevel != nil && !keepLevel[lvl] {
						continue
					}
					per, sched, funcs, err := measure(t.qemu, c.cpu, lvl, bin, path, n)
					if err != nil {
						return fmt.Errorf("%s on %s -cpu %s at %s: %v", m.name, t.name, c.cpu, lvl, err)
					}
					if lvl == "generic" {
						base = per
					}
					ratio := "-"
					if base > 0 && lvl != "generic" {
						ratio = fmt.Sprintf("%.2fx", base/per)
					}
					fmt.Printf("%-28s %-11s %-13s %15.0f %8s %10.0f\n", m.name, c.cpu, lvl, per, ratio, sched)
					printTop(funcs, top, n)
				}
			}
		}
	}
	return nil
}

// schedFuncs are the Go scheduler's functions that an Invoke enters
// only when sysmon asks the goroutine to yield (it does so after 10 ms
// of wall time, which under logging emulation passes every few thousand
// guest instructions): the stack-guard trap and the trip through the
// scheduler back to the same goroutine. Their instructions depend on the
// emulation's speed, not on the code measured, so measure leaves them
// out of the count and reports them apart.
var schedFuncs = map[string]bool{}

func init() {
	for _, f := range strings.Fields(`morestack.abi0 morestack_noctxt.abi0 newstack newstack.abi0
		gopreempt_m goschedImpl schedule findRunnable execute gogo gogo.abi0 mcall.abi0
		casgstatus lock2 unlock2 unlock2Wake wakep pidleget pidlegetSpinning
		globrunqget globrunqgetbatch runqget runqput runqputbatch runqgrab
		(*timers).check nanotime1.abi0 nanotime save_g.abi0 load_g.abi0
		(*gcControllerState).releaseNextGCMarkWorker (*m).clearAllpSnapshot
		(*mLockProfile).start (*mLockProfile).recordUnlock resetspinning checkTimers
		futex.abi0 futexsleep futexwakeup semasleep semawakeup osyield.abi0
		procyieldAsm.abi0 procyield.abi0 netpoll stealWork injectglist
		(*randomEnum).next (*randomOrder).start cheaprand runtimer
		gcstopm stopm startm notewakeup notesleep mPark handoffp`) {
		schedFuncs["runtime."+f] = true
	}
}

// measure returns the instructions of one Invoke without the
// scheduler's (schedFuncs), the scheduler's, and per function the
// instructions of the n counted invokes.
func measure(qemu, cpu, level, bin, model string, n int) (per, sched float64, funcs map[string]int64, err error) {
	c, f, err := count(qemu, cpu, level, bin, model, n)
	if err != nil {
		return 0, 0, nil, err
	}
	var s int64
	for name, k := range f {
		if schedFuncs[name] {
			s += k
		}
	}
	if c-s <= 0 {
		return 0, 0, nil, fmt.Errorf("no instructions between the markers (log format changed?)")
	}
	return float64(c-s) / float64(n), float64(s) / float64(n), f, nil
}

// count runs the guest under qemu with block logging piped to this
// process and returns the instructions executed between the markers
// (all threads) and the count per function.
func count(qemu, cpu, level, bin, model string, n int) (int64, map[string]int64, error) {
	fifo := filepath.Join(filepath.Dir(bin), fmt.Sprintf("log.%d", os.Getpid()))
	os.Remove(fifo)
	if err := mkfifo(fifo); err != nil {
		return 0, nil, err
	}
	defer os.Remove(fifo)
	cmd := exec.Command(qemu, "-cpu", cpu, "-d", "nochain,exec,in_asm", "-D", fifo, bin, "-guest", "-model", model, "-n", strconv.Itoa(n))
	// No asynchronous preemption: sysmon would signal the Invoke's thread
	// every 10 ms of (slow, emulated) time, adding work that depends on
	// the emulation's speed.
	cmd.Env = append(os.Environ(), "TFLRUN_ISA="+level, "GOMAXPROCS=1", "GOGC=off", "GODEBUG=asyncpreemptoff=1")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = os.Stdout, &stderr
	if err := cmd.Start(); err != nil {
		return 0, nil, err
	}
	f, err := os.Open(fifo) // blocks until qemu opens the log
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return 0, nil, err
	}
	total, funcs, perr := parseLog(f)
	io.Copy(io.Discard, f) // (after an error: let qemu finish)
	f.Close()
	if err := cmd.Wait(); err != nil {
		return 0, nil, fmt.Errorf("%v: %s", err, stderr.String())
	}
	if strings.Contains(stderr.String(), "TFLRUN_ISA") {
		return 0, nil, fmt.Errorf("level not honoured: %s", stderr.String())
	}
	return total, funcs, perr
}

// parseLog reads qemu's in_asm and exec log: an "IN: symbol" block lists
// a translated block's instructions (lines "0xADDR:  word  mnemonic"),
// and "Trace cpu: host [cs_base/pc/flags/cflags] symbol" records one
// execution of the block at pc by guest CPU (thread) cpu. Executions of
// the thread that runs main.countStart count from its first block of
// countStart to its first of main.countStop.
func parseLog(r io.Reader) (int64, map[string]int64, error) {
	size := map[uint64]int64{}
	funcs := map[string]int64{}
	var total int64
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	var inPC uint64
	inCount := int64(-1)
	counting, stopped := false, false
	var thread []byte // "Trace N:" of the counted thread
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case bytes.HasPrefix(line, []byte("Trace ")):
			l := bytes.IndexByte(line, '[')
			colon := bytes.IndexByte(line, ':')
			if l < 0 || colon < 0 || colon > l {
				continue
			}
			cpu := line[:colon]
			fields := bytes.SplitN(line[l+1:], []byte("/"), 3)
			if len(fields) < 2 {
				continue
			}
			pc, err := strconv.ParseUint(string(fields[1]), 16, 64)
			if err != nil {
				continue
			}
			var sym []byte
			if rb := bytes.IndexByte(line, ']'); rb >= 0 {
				sym = bytes.TrimSpace(line[rb+1:])
			}
			if stopped {
				continue
			}
			if !counting {
				if bytes.Equal(sym, []byte("main.countStart")) {
					counting, thread = true, bytes.Clone(cpu)
				}
				continue
			}
			if bytes.Equal(sym, []byte("main.countStop")) {
				if !bytes.Equal(cpu, thread) {
					return 0, nil, fmt.Errorf("the Invoke moved from guest thread %q to %q", thread, cpu)
				}
				counting, stopped = false, true
				continue
			}
			if !bytes.Equal(cpu, thread) {
				continue
			}
			c := size[pc]
			total += c
			funcs[string(sym)] += c
		case bytes.HasPrefix(line, []byte("IN:")):
			inCount = 0
		case inCount >= 0 && bytes.HasPrefix(line, []byte("0x")):
			if inCount == 0 {
				colon := bytes.IndexByte(line, ':')
				if colon > 2 {
					inPC, _ = strconv.ParseUint(string(line[2:colon]), 16, 64)
				}
			}
			inCount++
		case inCount >= 0 && len(bytes.TrimSpace(line)) == 0:
			if inCount > 0 {
				size[inPC] = inCount
			}
			inCount = -1
		}
	}
	return total, funcs, sc.Err()
}

func printTop(funcs map[string]int64, k, n int) {
	if k <= 0 {
		return
	}
	type fc struct {
		name string
		c    int64
	}
	var list []fc
	for name, c := range funcs {
		if c > 0 {
			list = append(list, fc{name, c})
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].c > list[j].c })
	for i := 0; i < k && i < len(list); i++ {
		fmt.Printf("    %14d  %s\n", list[i].c/int64(n), list[i].name)
	}
}
