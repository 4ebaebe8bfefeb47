package flex_test

import (
	"testing"

	"github.com/tflrun/tflrun/interpreter"
)

// FuzzFlexModels mutates models with Flex TensorList operators (their
// NodeDefs, tensor types and shapes, the loop) and runs them: an error or
// a result, never a panic, within a small memory bound and loop limit.
func FuzzFlexModels(f *testing.F) {
	f.Add(loopModel(f, 3, 3, nil, nil))
	f.Add(loopModel(f, 3, 4, nil, nil))
	f.Add(listOpsModel(f, []int32{2}))
	f.Add(listOpsModel(f, []int32{-1}))
	f.Fuzz(func(t *testing.T, model []byte) {
		m, err := interpreter.LoadBytes(model)
		if err != nil {
			return
		}
		defer m.Close()
		it, err := interpreter.New(m, &interpreter.Options{MaxArenaBytes: 16 << 20, MaxLoopIterations: 100})
		if err != nil {
			return
		}
		defer it.Close()
		if err := it.AllocateTensors(); err != nil {
			return
		}
		for range 2 {
			if err := it.Invoke(); err != nil {
				return
			}
		}
	})
}
