package interpreter_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/tflrun/tflrun/internal/hostile"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/schema"
)

// fuzzResolver is built once: a resolver only maps operators to kernel
// constructors, so the fuzzer's interpreters share it.
var fuzzResolver = interpreter.DefaultResolver()

// FuzzLoadAllocateInvoke feeds arbitrary bytes through the whole path a
// model file takes: LoadBytes (verification), New, AllocateTensors and one
// Invoke with the inputs left as allocated, under a 64 MiB bound. Any
// error is fine, except the ones the interpreter's guard makes of a
// kernel panic or a memory fault (ErrPanic, ErrMemoryFault: each is a
// bug its checks missed); a run over 10 s or an allocation beyond the
// bound is a bug too.
//
// The seeds are the small test models of this package and one model of
// each hostile class of issue 10 (internal/hostile, at sizes that run in
// milliseconds), so `go test` runs them all on every test run.
//
// Run it with a minimisation budget in executions: when a mutant finds
// new coverage, Go's fuzzer minimises it before fuzzing on, trying every
// byte and every range of bytes removed (quadratic in the input's size),
// and on a model of a few hundred bytes at half a millisecond a run that
// filled the default 60 s of every worker: the target ran about 30
// executions in 30 s (with the 41 KB MNIST LSTM seeds, which the golden
// tests cover instead). With -fuzzminimizetime=10x it runs a few hundred
// a second on this machine:
//
//	go test ./interpreter -run='^$' -fuzz=FuzzLoadAllocateInvoke -fuzzminimizetime=10x -fuzztime=5m
func FuzzLoadAllocateInvoke(f *testing.F) {
	for _, b := range interpreter.SeedModels(f) {
		f.Add(b)
	}
	for _, b := range hostileSeeds(f) {
		f.Add(b)
	}
	// Dynamic tensors and control flow (dynamic_test.go, control_test.go).
	for _, b := range [][]byte{flattenModel(2), fillDimsModel(), topkModel(), resizeModel(),
		counterWhile(false).Bytes(), counterWhile(true).Bytes(), growWhile().Bytes(), ifModel().Bytes()} {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		start := time.Now()
		err := loadRun(b)
		if errors.Is(err, interpreter.ErrPanic) || errors.Is(err, interpreter.ErrMemoryFault) {
			t.Fatalf("the interpreter caught: %v", err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("the model took %v (error: %v)", d, err)
		}
	})
}

// hostileSeeds is one model of every runtime class of issue 10.
func hostileSeeds(tb testing.TB) [][]byte {
	var out [][]byte
	for _, op := range hostile.TwoWriterOps {
		b, err := hostile.TwoWriters(op)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	out = append(out, hostile.SelfConsumer(), hostile.EmptyShapeReshape(), hostile.FullyConnectedInt8Empty(),
		hostile.Chain(100), hostile.ManyInputs(100), hostile.SharedOperators(1000))
	for _, bilinear := range []bool{true, false} {
		out = append(out, hostile.ResizeZeroBatch(bilinear), hostile.Resize(bilinear, []int32{1, 4, 4, 1}, math.MaxInt32/4, 1))
	}
	for _, op := range []schema.BuiltinOperator{schema.BuiltinOperatorMAX_POOL_2D, schema.BuiltinOperatorAVERAGE_POOL_2D} {
		out = append(out, hostile.Pool(op, schema.TensorTypeFLOAT32, math.MaxInt32, math.MaxInt32),
			hostile.Pool(op, schema.TensorTypeINT8, 1, math.MaxInt32))
	}
	return out
}

// loadRun loads b and runs it once under a 64 MiB bound.
func loadRun(b []byte) error {
	m, err := interpreter.LoadBytes(b)
	if err != nil {
		return err
	}
	// A mutated loop may never end: 2^16 iterations keep a run in
	// milliseconds (the default bound of 2^22 takes seconds).
	it, err := interpreter.New(m, &interpreter.Options{MaxArenaBytes: 64 << 20, Resolver: fuzzResolver, MaxLoopIterations: 1 << 16})
	if err != nil {
		return err
	}
	defer it.Close()
	if err := it.AllocateTensors(); err != nil {
		return err
	}
	return it.Invoke()
}
