package tflite

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/ops"
)

// sharedModels is ../shared/models from the repository root.
const sharedModels = "../../../../shared/models"

// runModel runs a model on inputs drawn from seed (floats in [-1, 1),
// integers in [0, 4), quantised bytes anywhere) and returns every
// output's bytes.
func runModel(model []byte, seed int64) ([][]byte, error) {
	m, err := interpreter.LoadBytes(model)
	if err != nil {
		return nil, err
	}
	it, err := interpreter.New(m, nil)
	if err != nil {
		return nil, err
	}
	defer it.Close()
	if err := it.AllocateTensors(); err != nil {
		return nil, err
	}
	r := rand.New(rand.NewSource(seed))
	for i := 0; i < it.InputCount(); i++ {
		t := it.Input(i)
		switch t.Type {
		case ops.Float32:
			for k := 0; k+4 <= len(t.Data); k += 4 {
				binary.LittleEndian.PutUint32(t.Data[k:], math.Float32bits(r.Float32()*2-1))
			}
		case ops.Int32, ops.Int64:
			w := 4
			if t.Type == ops.Int64 {
				w = 8
			}
			for k := 0; k+w <= len(t.Data); k += w {
				t.Data[k] = byte(r.Intn(4))
			}
		case ops.Int8, ops.Uint8, ops.Int16:
			r.Read(t.Data)
		default:
			return nil, fmt.Errorf("input %d is %v, which the test does not fill", i, t.Type)
		}
	}
	if err := it.Invoke(); err != nil {
		return nil, err
	}
	var outs [][]byte
	for i := 0; i < it.OutputCount(); i++ {
		outs = append(outs, bytes.Clone(it.Output(i).Data))
	}
	return outs, nil
}

// TestRoundTripSharedModels reads every model of ../shared/models into
// the IR and writes it back unchanged: the written model must give the
// same outputs, bit for bit, on random inputs.
func TestRoundTripSharedModels(t *testing.T) {
	if _, err := os.Stat(sharedModels); err != nil {
		t.Skipf("no shared models at %s: %v", sharedModels, err)
	}
	var paths []string
	filepath.Walk(sharedModels, func(p string, info os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, ".tflite") {
			paths = append(paths, p)
		}
		return nil
	})
	if len(paths) == 0 {
		t.Skip("no .tflite models in ../shared/models")
	}
	for _, p := range paths {
		t.Run(strings.TrimPrefix(p, sharedModels+"/"), func(t *testing.T) {
			buf, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Read(buf, ir.NewBudget(ir.DefaultLimits))
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			out, err := WriteModel(m, "")
			if err != nil {
				t.Fatalf("WriteModel: %v", err)
			}
			for seed := int64(1); seed <= 3; seed++ {
				want, err := runModel(buf, seed)
				if err != nil {
					t.Skipf("the original does not run in tflrun: %v", err)
				}
				got, err := runModel(out, seed)
				if err != nil {
					t.Fatalf("the written model does not run: %v", err)
				}
				if len(got) != len(want) {
					t.Fatalf("%d outputs, want %d", len(got), len(want))
				}
				for i := range want {
					if !bytes.Equal(got[i], want[i]) {
						t.Fatalf("seed %d: output %d differs", seed, i)
					}
				}
			}
		})
	}
}
