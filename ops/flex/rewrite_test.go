package flex_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// TestFlexModels runs the .tflite models of the folder $TFLRUN_FLEX_MODELS
// (TensorFlow conversions of Keras RNN layers as WHILE loops over Flex
// TensorList ops, such as the corpus's "Flex TensorList" models) as they
// are, and compares each with a builtins-only rewrite of itself: every
// list made by a TensorListReserve and filled by one TensorListSetItem
// per loop step becomes a float tensor [T, batch, units] (FILL with
// zeros), the SetItem a DYNAMIC_UPDATE_SLICE, the TensorListStack a
// RESHAPE. The two must agree exactly on random inputs. With
// $TFLRUN_FLEX_WRITE set, the rewrites are written there (for a native
// TensorFlow Lite runner, which cannot run the originals without the
// Flex delegate).
func TestFlexModels(t *testing.T) {
	dir := os.Getenv("TFLRUN_FLEX_MODELS")
	if dir == "" {
		t.Skip("TFLRUN_FLEX_MODELS is not set (a folder of .tflite models with Flex TensorList loops)")
	}
	paths, err := filepath.Glob(filepath.Join(dir, "*.tflite"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no .tflite models in %s: %v", dir, err)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			model, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			rewritten, n, err := rewriteLists(model)
			if err != nil {
				t.Skipf("not rewritten: %v", err)
			}
			if out := os.Getenv("TFLRUN_FLEX_WRITE"); out != "" {
				name := strings.TrimSuffix(filepath.Base(path), ".tflite") + "_builtins.tflite"
				if err := os.WriteFile(filepath.Join(out, name), rewritten, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			a := newInterpreter(t, model, nil)
			b := newInterpreter(t, rewritten, nil)
			for _, it := range []*interpreter.Interpreter{a, b} {
				if err := it.AllocateTensors(); err != nil {
					t.Fatal(err)
				}
			}
			r := rand.New(rand.NewPCG(15, 3))
			for run := range 5 {
				for i := range a.InputCount() {
					in := a.Input(i)
					fillRandom(r, in)
					if err := b.Input(i).CopyFromBytes(in.Data); err != nil {
						t.Fatal(err)
					}
				}
				a.ResetVariableTensors()
				b.ResetVariableTensors()
				errA, errB := a.Invoke(), b.Invoke()
				if errA != nil && errB != nil && errA.Error() == errB.Error() && !strings.Contains(errA.Error(), "TensorList") {
					t.Skipf("the model fails where it has no list, rewritten or not: %v", errA) // an uninitialised variable, say
				}
				if errA != nil || errB != nil {
					t.Fatalf("run %d: %v; rewritten: %v", run, errA, errB)
				}
				for j := range a.OutputCount() {
					x, y := a.Output(j), b.Output(j)
					if string(x.Data[:x.Bytes()]) != string(y.Data[:y.Bytes()]) || !ops.SameShape(x.Shape, y.Shape) {
						t.Errorf("run %d output %d: %v %v, rewritten %v %v", run, j, x.Shape, x.Float32s(), y.Shape, y.Float32s())
					}
				}
			}
			t.Logf("%d lists rewritten; outputs agree on 5 random inputs; output 0 %v", n, a.Output(0).Float32s())
		})
	}
}

// fillRandom fills a float32 tensor with uniform [-1, 1) and an integer
// one with small non-negative values (token ids).
func fillRandom(r *rand.Rand, t *ops.Tensor) {
	switch t.Type {
	case ops.Float32:
		v := t.Float32s()
		for i := range v {
			v[i] = 2*r.Float32() - 1
		}
	case ops.Int32:
		v := t.Int32s()
		for i := range v {
			v[i] = int32(r.IntN(20))
		}
	}
}

// rewriteLists rewrites model's Reserve / WHILE-SetItem / Stack lists to
// builtins (see TestFlexModels) and returns the model and the number of
// lists.
func rewriteLists(model []byte) ([]byte, int, error) {
	m := schema.GetRootAsModel(model, 0).UnPack()
	main := m.Subgraphs[0]
	opName := func(op *schema.OperatorT) string {
		c := m.OperatorCodes[op.OpcodeIndex]
		if c.BuiltinCode == schema.BuiltinOperatorCUSTOM {
			return c.CustomCode
		}
		return c.BuiltinCode.String()
	}
	opcode := func(code schema.BuiltinOperator) uint32 {
		for i, c := range m.OperatorCodes {
			if c.BuiltinCode == code && c.CustomCode == "" {
				return uint32(i)
			}
		}
		m.OperatorCodes = append(m.OperatorCodes, &schema.OperatorCodeT{BuiltinCode: code, Version: 1, DeprecatedBuiltinCode: int8(min(code, 127))})
		return uint32(len(m.OperatorCodes) - 1)
	}
	constant := func(sg *schema.SubGraphT, name string, typ schema.TensorType, shape []int32, data []byte) int32 {
		m.Buffers = append(m.Buffers, &schema.BufferT{Data: data})
		sg.Tensors = append(sg.Tensors, &schema.TensorT{Name: name, Type: typ, Shape: shape, Buffer: uint32(len(m.Buffers) - 1)})
		return int32(len(sg.Tensors) - 1)
	}
	ints := func(v ...int32) []byte {
		b := make([]byte, 4*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
		}
		return b
	}
	consumers := func(sg *schema.SubGraphT, tensor int32) (users []*schema.OperatorT, slots []int) {
		for _, op := range sg.Operators {
			for k, in := range op.Inputs {
				if in == tensor {
					users, slots = append(users, op), append(slots, k)
				}
			}
		}
		return
	}
	retype := func(t *schema.TensorT, shape []int32) {
		t.Type, t.Shape, t.ShapeSignature, t.VariantTensors = schema.TensorTypeFLOAT32, shape, nil, nil
	}
	lists := 0
	for ri, r := range main.Operators {
		if opName(r) != "FlexTensorListReserve" {
			continue
		}
		list := r.Outputs[0]
		loops, slots := consumers(main, list)
		var shape []int32
		type site struct {
			w    *schema.OperatorT
			slot int
		}
		var sites []site
		for k, w := range loops {
			if opName(w) != "WHILE" {
				return nil, 0, fmt.Errorf("the list of Reserve %d is read by %s", ri, opName(w))
			}
			out := w.Outputs[slots[k]]
			stacks, _ := consumers(main, out)
			if len(stacks) != 1 || opName(stacks[0]) != "FlexTensorListStack" {
				return nil, 0, fmt.Errorf("WHILE output %d is not read by one Stack", slots[k])
			}
			s := main.Tensors[stacks[0].Outputs[0]].Shape
			if len(s) != 3 || s[0] <= 0 || s[1] <= 0 || s[2] <= 0 || shape != nil && fmt.Sprint(shape) != fmt.Sprint(s) {
				return nil, 0, fmt.Errorf("Stack output shape %v", s)
			}
			shape = s
			sites = append(sites, site{w, slots[k]})
		}
		if shape == nil {
			return nil, 0, fmt.Errorf("Reserve %d feeds no loop", ri)
		}
		// Reserve → FILL(shape, 0).
		dims := constant(main, "list_dims", schema.TensorTypeINT32, []int32{3}, ints(shape...))
		zero := constant(main, "list_zero", schema.TensorTypeFLOAT32, []int32{}, ints(int32(math.Float32bits(0))))
		*r = schema.OperatorT{OpcodeIndex: opcode(schema.BuiltinOperatorFILL), Inputs: []int32{dims, zero}, Outputs: []int32{list}}
		retype(main.Tensors[list], shape)
		for _, s := range sites {
			o := s.w.BuiltinOptions.Value.(*schema.WhileOptionsT)
			cond, body := m.Subgraphs[o.CondSubgraphIndex], m.Subgraphs[o.BodySubgraphIndex]
			out := s.w.Outputs[s.slot]
			retype(main.Tensors[out], shape)
			retype(cond.Tensors[cond.Inputs[s.slot]], shape)
			if users, _ := consumers(cond, cond.Inputs[s.slot]); len(users) != 0 {
				return nil, 0, fmt.Errorf("the cond reads the list")
			}
			in := body.Inputs[s.slot]
			retype(body.Tensors[in], shape)
			users, _ := consumers(body, in)
			if len(users) != 1 || opName(users[0]) != "FlexTensorListSetItem" || users[0].Outputs[0] != body.Outputs[s.slot] {
				return nil, 0, fmt.Errorf("the body does not write its list with one SetItem")
			}
			set := users[0]
			retype(body.Tensors[set.Outputs[0]], shape)
			// SetItem(l, i, item) → DYNAMIC_UPDATE_SLICE(l, RESHAPE(item), PACK(i, 0, 0)).
			itemShape := constant(body, "item_shape", schema.TensorTypeINT32, []int32{3}, ints(1, shape[1], shape[2]))
			z := constant(body, "zero_index", schema.TensorTypeINT32, []int32{}, ints(0))
			body.Tensors = append(body.Tensors, &schema.TensorT{Name: "item3", Type: schema.TensorTypeFLOAT32, Shape: []int32{1, shape[1], shape[2]}, Buffer: 0},
				&schema.TensorT{Name: "indices", Type: schema.TensorTypeINT32, Shape: []int32{3}})
			item3, indices := int32(len(body.Tensors)-2), int32(len(body.Tensors)-1)
			reshape := &schema.OperatorT{OpcodeIndex: opcode(schema.BuiltinOperatorRESHAPE), Inputs: []int32{set.Inputs[2], itemShape}, Outputs: []int32{item3}}
			pack := &schema.OperatorT{OpcodeIndex: opcode(schema.BuiltinOperatorPACK), Inputs: []int32{set.Inputs[1], z, z}, Outputs: []int32{indices},
				BuiltinOptions: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsPackOptions, Value: &schema.PackOptionsT{ValuesCount: 3}}}
			dus := &schema.OperatorT{OpcodeIndex: opcode(schema.BuiltinOperatorDYNAMIC_UPDATE_SLICE), Inputs: []int32{in, item3, indices}, Outputs: set.Outputs}
			var ops []*schema.OperatorT
			for _, op := range body.Operators {
				if op == set {
					ops = append(ops, reshape, pack, dus)
				} else {
					ops = append(ops, op)
				}
			}
			body.Operators = ops
			// Stack → RESHAPE to the list's shape (an identity).
			stacks, _ := consumers(main, out)
			st := stacks[0]
			*st = schema.OperatorT{OpcodeIndex: opcode(schema.BuiltinOperatorRESHAPE), Inputs: []int32{out, dims}, Outputs: st.Outputs}
			lists++
		}
	}
	if lists == 0 {
		return nil, 0, fmt.Errorf("no Reserve/WHILE/Stack list")
	}
	return optest.Pack(m), lists, nil
}
