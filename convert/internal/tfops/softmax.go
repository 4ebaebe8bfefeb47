package tfops

import (
	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

func init() {
	ir.RegisterOp(ir.OpRecord{Name: "Softmax", Outputs: "softmax:T", MinInputs: 1, Infer: inferSameShape, Legalize: legalizeOneToOne(schema.BuiltinOperatorSOFTMAX, 1, func() any { return &schema.SoftmaxOptionsT{Beta: 1} })})
	ir.RegisterOp(ir.OpRecord{Name: "LogSoftmax", Outputs: "logsoftmax:T", MinInputs: 1, Infer: inferSameShape, Legalize: legalizeOneToOne(schema.BuiltinOperatorLOG_SOFTMAX, 1, func() any { return &schema.LogSoftmaxOptionsT{} })})
}
