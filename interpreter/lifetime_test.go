package interpreter

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Lifetimes, concurrent misuse and kernel failures: every one must end in
// an error (or keep working), never in a fault, a panic or a wrong
// output. These run under -race in CI.

// customModel is fcModel with its operator replaced by the custom
// operator name reading the input and writing a [1, 4] output.
func customModel(name string) *schema.ModelT {
	m := fcModel()
	m.OperatorCodes[0] = &schema.OperatorCodeT{BuiltinCode: schema.BuiltinOperatorCUSTOM, DeprecatedBuiltinCode: 32, CustomCode: name, Version: 1}
	m.Subgraphs[0].Operators[0].Inputs = []int32{0}
	m.Subgraphs[0].Operators[0].BuiltinOptions = nil
	m.Subgraphs[0].Tensors[3].Shape = []int32{1, 4}
	return m
}

// hookKernel is doubleKernel with hooks run at Prepare and Eval.
type hookKernel struct {
	doubleKernel
	prepare, eval func()
}

func (k *hookKernel) Prepare(n *ops.Node) error {
	if k.prepare != nil {
		k.prepare()
	}
	return k.doubleKernel.Prepare(n)
}

func (k *hookKernel) Eval(n *ops.Node) error {
	if k.eval != nil {
		k.eval()
	}
	return k.doubleKernel.Eval(n)
}

// hookInterpreter allocates an interpreter of customModel whose kernel
// runs the hooks.
func hookInterpreter(t *testing.T, prepare, eval func()) (*Interpreter, error) {
	t.Helper()
	r := DefaultResolver()
	r.AddCustom("Hook", func() ops.Kernel { return &hookKernel{prepare: prepare, eval: eval} })
	it, err := New(mustLoad(t, customModel("Hook")), &Options{Resolver: r})
	if err != nil {
		t.Fatal(err)
	}
	return it, it.AllocateTensors()
}

func TestKernelPanicIsAnError(t *testing.T) {
	var nilSlice []float32
	it, err := hookInterpreter(t, nil, func() { nilSlice[3] = 1 })
	if err != nil {
		t.Fatal(err)
	}
	err = it.Invoke()
	if !errors.Is(err, ErrPanic) {
		t.Fatalf("Invoke: %v, want ErrPanic", err)
	}
	for _, want := range []string{"Hook v1 (operator 0, subgraph 0)", "kernel *interpreter.hookKernel", "panicked", "index out of range"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("Invoke: %v, want an error containing %q", err, want)
		}
	}
	// The interpreter stays usable: the flag was released.
	if err := it.ResetVariableTensors(); err != nil {
		t.Fatal(err)
	}
	_, err = hookInterpreter(t, func() { panic("bad prepare") }, nil)
	if err == nil || !strings.Contains(err.Error(), "Hook v1 (operator 0, subgraph 0), kernel *interpreter.hookKernel: kernel panicked: bad prepare") {
		t.Fatalf("AllocateTensors: %v", err)
	}
}

func TestConcurrentUseIsAnError(t *testing.T) {
	inside, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	block := func() {
		once.Do(func() {
			close(inside)
			<-release
		})
	}
	it, err := hookInterpreter(t, nil, block)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() { done <- it.Invoke() }()
	<-inside // the other goroutine is inside Invoke
	for name, f := range map[string]func() error{
		"Invoke":               it.Invoke,
		"AllocateTensors":      it.AllocateTensors,
		"ResetVariableTensors": it.ResetVariableTensors,
		"ResizeInputTensor":    func() error { return it.ResizeInputTensor(0, []int{1, 4}) },
		"Close":                it.Close,
	} {
		if err := f(); !errors.Is(err, ErrConcurrentUse) {
			t.Errorf("%s during another goroutine's Invoke: %v, want ErrConcurrentUse", name, err)
		}
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := it.Invoke(); err != nil {
		t.Fatalf("Invoke after the other one finished: %v", err)
	}
}

// TestConcurrentInvokesNeverCorrupt: two goroutines invoking one
// interpreter get either a correct run or ErrConcurrentUse.
func TestConcurrentInvokesNeverCorrupt(t *testing.T) {
	it, err := New(mustLoad(t, fcModel()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	x := [4]float32{1, -2, 3, 0.5}
	if err := it.Input(0).CopyFrom(x[:]); err != nil {
		t.Fatal(err)
	}
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	want := append([]float32(nil), it.Output(0).Float32s()...)
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok, busy := 0, 0
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 2000 {
				err := it.Invoke()
				mu.Lock()
				switch {
				case err == nil:
					ok++
				case errors.Is(err, ErrConcurrentUse):
					busy++
				default:
					t.Error(err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if ok == 0 {
		t.Fatal("no Invoke succeeded")
	}
	if got := it.Output(0).Float32s(); !equalF32(got, want) {
		t.Fatalf("output %v, want %v (a single goroutine's)", got, want)
	}
	t.Logf("%d runs, %d refused as concurrent", ok, busy)
}

// writeModel writes b to a file in t's temporary directory.
func writeModel(t *testing.T, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "model.tflite")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestModelCloseWhileRunning(t *testing.T) {
	m, err := Load(writeModel(t, pack(fcModel())))
	if err != nil {
		t.Fatal(err)
	}
	it, err := New(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	x := [4]float32{0.5, 1, -1, 2}
	_ = it.Input(0).CopyFrom(x[:])
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	want := append([]float32(nil), it.Output(0).Float32s()...)
	started, done := make(chan struct{}), make(chan error)
	go func() {
		for i := range 3000 {
			if i == 10 {
				close(started)
			}
			if err := it.Invoke(); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	<-started
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := New(m, nil); !errors.Is(err, ErrModelClosed) {
		t.Errorf("New after Close: %v, want ErrModelClosed", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Invoke after the model's Close: %v", err)
	}
	// The interpreter still holds the mapping and still computes.
	if got := it.Output(0).Float32s(); !equalF32(got, want) {
		t.Fatalf("output %v, want %v", got, want)
	}
	if m.life.unmap == nil {
		t.Fatal("the mapping was released while an interpreter held it")
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	if m.life.unmap != nil {
		t.Fatal("the mapping outlived the Model's Close and its last interpreter's")
	}
	for name, f := range map[string]func() error{"Invoke": it.Invoke, "AllocateTensors": it.AllocateTensors, "ResetVariableTensors": it.ResetVariableTensors} {
		if err := f(); !errors.Is(err, ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", name, err)
		}
	}
	if err := it.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestUnreachableInterpreterReleasesModel: an interpreter dropped without
// Close releases its hold when the garbage collector finds it.
func TestUnreachableInterpreterReleasesModel(t *testing.T) {
	m, err := Load(writeModel(t, pack(fcModel())))
	if err != nil {
		t.Fatal(err)
	}
	func() {
		it, err := New(m, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := it.AllocateTensors(); err != nil {
			t.Fatal(err)
		}
	}()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		m.life.mu.Lock()
		released := m.life.unmap == nil
		m.life.mu.Unlock()
		if released {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the mapping is still held 5 s after its only interpreter became unreachable")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestISASwitchRefusedWhileAlive: Options.ISA cannot change the level
// while another interpreter is alive, nor arch.Use during a run.
func TestISASwitchRefusedWhileAlive(t *testing.T) {
	levels := arch.Levels()
	if len(levels) < 2 {
		t.Skip("this process offers one ISA level only")
	}
	saved := arch.Current()
	defer func() {
		runtime.GC()
		if err := arch.Use(saved); err != nil {
			t.Error(err)
		}
	}()
	other := levels[0]
	if other == saved {
		other = levels[len(levels)-1]
	}
	m := mustLoad(t, fcModel())
	first, err := New(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(m, &Options{ISA: other.String()}); err == nil || !strings.Contains(err.Error(), "other interpreter(s) are alive") {
		t.Fatalf("ISA %s with a live interpreter: %v, want a refusal", other, err)
	}
	if arch.Current() != saved {
		t.Fatalf("the refused switch changed the level to %s", arch.Current())
	}
	// The level in use is always accepted.
	same, err := New(m, &Options{ISA: saved.String()})
	if err != nil {
		t.Fatalf("ISA %s (the level in use): %v", saved, err)
	}
	_ = same.Close()
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	second, err := New(m, &Options{ISA: other.String()})
	if err != nil {
		t.Fatalf("ISA %s with no other interpreter alive: %v", other, err)
	}
	if arch.Current() != other {
		t.Fatalf("level %s, want %s", arch.Current(), other)
	}
	_ = second.Close()

	// arch.Use during a run is refused.
	inside, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	it, err := hookInterpreter(t, nil, func() {
		once.Do(func() {
			close(inside)
			<-release
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() { done <- it.Invoke() }()
	<-inside
	if err := arch.Use(saved); !errors.Is(err, arch.ErrRunning) {
		t.Errorf("arch.Use during Invoke: %v, want arch.ErrRunning", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	_ = it.Close()
}

// TestTruncatedAfterLoad truncates a mapped model file after Load: the
// reads of its constants that follow fault (SIGBUS), and AllocateTensors
// and Invoke report it as an error.
func TestTruncatedAfterLoad(t *testing.T) {
	if !mapsFiles {
		t.Skip("models are read, not mapped, on this system")
	}
	if e := os.Getenv("TFLRUN_EMULATOR"); e != "" {
		// qemu-user reports the SIGBUS of a truncated mapping with a zero
		// fault address, which Go turns into a nil dereference (no Addr),
		// so the fault cannot be told from a kernel bug there.
		t.Skipf("TFLRUN_EMULATOR=%s: user-mode emulation does not deliver the fault address of a SIGBUS", e)
	}
	// FULLY_CONNECTED packs its weights at Prepare (AllocateTensors reads
	// them); ADD reads its constant operand at every Invoke.
	add := singleOpModel(schema.BuiltinOperatorADD, 1, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsAddOptions, Value: &schema.AddOptionsT{}},
		[]hTensor{f32t("x", nil, 1, 1024), f32t("c", zerosF32(1024), 1, 1024)}, []hTensor{f32t("y", nil, 1, 1024)})
	for _, tc := range []struct {
		name    string
		model   []byte
		atAlloc bool
	}{{"AllocateTensors", pack(fcModel()), true}, {"Invoke", pack(add), false}} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeModel(t, tc.model)
			m, err := Load(p)
			if err != nil {
				t.Fatal(err)
			}
			it, err := New(m, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.atAlloc {
				if err := it.AllocateTensors(); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Truncate(p, 0); err != nil {
				t.Fatal(err)
			}
			err = it.AllocateTensors()
			if !tc.atAlloc {
				if err != nil {
					t.Fatalf("AllocateTensors reads nothing of ADD's constant: %v", err)
				}
				err = it.Invoke()
			}
			if !errors.Is(err, ErrMemoryFault) || !strings.Contains(err.Error(), "(operator 0, subgraph 0)") {
				t.Fatalf("%s of a truncated mapping: %v, want a memory fault error naming the operator", tc.name, err)
			}
			_ = it.Close()
			_ = m.Close()
		})
	}
}
