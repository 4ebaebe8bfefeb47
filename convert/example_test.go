package convert_test

import (
	"fmt"
	"log"

	"github.com/tflrun/tflrun/convert"
	"github.com/tflrun/tflrun/convert/fusion"
	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// A user-defined fusion rule: functions annotated
// _implements="test.double_relu" (2·relu(x)) become RELU followed by MUL
// by 2. The rule reads the call site, adds TFLite nodes to the caller and
// rewires the call's output; the converter removes the call.
func Example_userRule() {
	reg := fusion.Default.Clone() // the built-in rules plus ours
	err := reg.Register("test.double_relu", fusion.RuleFunc{RuleName: "double-relu", Func: func(s *fusion.Site) (fusion.Result, error) {
		x := s.Call.Inputs[0]
		if !x.Shape.Static() {
			return fusion.Result{Reason: "input shape is not static"}, nil // refuse: lowered op by op
		}
		relu := s.Caller.NewTFL(s.Call.Name+"/relu", &ir.TFLOp{Builtin: schema.BuiltinOperatorRELU, Version: 1},
			[]*ir.Value{x}, ir.TypeShape{DType: x.DType, Shape: x.Shape})
		two := s.Caller.NewConst(s.Call.Name+"/two", ir.FromFloat32s(ir.Shape{}, []float32{2}))
		mul := s.Caller.NewTFL(s.Call.Name+"/mul", &ir.TFLOp{Builtin: schema.BuiltinOperatorMUL, Version: 1,
			Options: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsMulOptions, Value: &schema.MulOptionsT{}}},
			[]*ir.Value{relu.Outputs[0], two}, ir.TypeShape{DType: x.DType, Shape: x.Shape})
		s.ReplaceOutput(0, mul.Outputs[0])
		return fusion.Result{Fused: true, Ops: []string{"RELU", "MUL"}}, nil
	}})
	if err != nil {
		log.Fatal(err)
	}
	res, err := convert.Convert("testdata/double_relu.pbtxt", convert.Options{OutputArrays: []string{"out"}, Registry: reg})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(res.Report.Text())
	// Output:
	// fusion report: 1 composite call(s), 1 fused
	// - call: _implements="test.double_relu" rule double-relu: fused
	//     function double_relu
	//     ops: RELU, MUL
}
