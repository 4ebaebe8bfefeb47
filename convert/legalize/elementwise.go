package legalize

import (
	"fmt"

	"github.com/tflrun/tflrun/schema"
)

// unary maps element-wise TensorFlow ops to the TFLite operator of the
// same meaning (one input, same shape out).
var unary = map[string]schema.BuiltinOperator{
	"Relu": schema.BuiltinOperatorRELU, "Relu6": schema.BuiltinOperatorRELU6,
	"Sigmoid": schema.BuiltinOperatorLOGISTIC, "Tanh": schema.BuiltinOperatorTANH,
	"Elu": schema.BuiltinOperatorELU, "Exp": schema.BuiltinOperatorEXP, "Log": schema.BuiltinOperatorLOG,
	"Sqrt": schema.BuiltinOperatorSQRT, "Rsqrt": schema.BuiltinOperatorRSQRT, "Square": schema.BuiltinOperatorSQUARE,
	"Neg": schema.BuiltinOperatorNEG, "Abs": schema.BuiltinOperatorABS, "Floor": schema.BuiltinOperatorFLOOR,
	"Ceil": schema.BuiltinOperatorCEIL, "Round": schema.BuiltinOperatorROUND, "Sin": schema.BuiltinOperatorSIN,
	"Cos": schema.BuiltinOperatorCOS, "Sign": schema.BuiltinOperatorSIGN, "LogicalNot": schema.BuiltinOperatorLOGICAL_NOT,
	"ZerosLike": schema.BuiltinOperatorZEROS_LIKE,
}

// binary maps broadcasting binary TensorFlow ops to TFLite operators.
var binary = map[string]schema.BuiltinOperator{
	"Add": schema.BuiltinOperatorADD, "AddV2": schema.BuiltinOperatorADD, "Sub": schema.BuiltinOperatorSUB,
	"Mul": schema.BuiltinOperatorMUL, "RealDiv": schema.BuiltinOperatorDIV, "Div": schema.BuiltinOperatorDIV,
	"Maximum": schema.BuiltinOperatorMAXIMUM, "Minimum": schema.BuiltinOperatorMINIMUM,
	"SquaredDifference": schema.BuiltinOperatorSQUARED_DIFFERENCE, "Pow": schema.BuiltinOperatorPOW,
	"FloorDiv": schema.BuiltinOperatorFLOOR_DIV, "FloorMod": schema.BuiltinOperatorFLOOR_MOD,
	"Less": schema.BuiltinOperatorLESS, "LessEqual": schema.BuiltinOperatorLESS_EQUAL,
	"Greater": schema.BuiltinOperatorGREATER, "GreaterEqual": schema.BuiltinOperatorGREATER_EQUAL,
	"Equal": schema.BuiltinOperatorEQUAL, "NotEqual": schema.BuiltinOperatorNOT_EQUAL,
	"LogicalAnd": schema.BuiltinOperatorLOGICAL_AND, "LogicalOr": schema.BuiltinOperatorLOGICAL_OR,
}

func init() {
	for op, code := range unary {
		code := code
		register(func(c *ctx) error {
			x, err := c.in(0)
			if err != nil {
				return err
			}
			return c.same(code, nil, x)
		}, op)
	}
	for op, code := range binary {
		code := code
		register(func(c *ctx) error {
			a, err := c.in(0)
			if err != nil {
				return err
			}
			b, err := c.in(1)
			if err != nil {
				return err
			}
			if c.n.Op == "Div" && a.DType.IsInteger() {
				// TensorFlow's integer Div truncates toward zero; tflrun
				// does not map it until the TFLite kernel's rounding of
				// negative quotients is checked against it.
				return fmt.Errorf("integer Div is not supported")
			}
			var opts any
			switch code {
			case schema.BuiltinOperatorADD:
				opts = &schema.AddOptionsT{}
			case schema.BuiltinOperatorSUB:
				opts = &schema.SubOptionsT{}
			case schema.BuiltinOperatorMUL:
				opts = &schema.MulOptionsT{}
			case schema.BuiltinOperatorDIV:
				opts = &schema.DivOptionsT{}
			case schema.BuiltinOperatorMAXIMUM, schema.BuiltinOperatorMINIMUM:
				opts = &schema.MaximumMinimumOptionsT{}
			case schema.BuiltinOperatorSQUARED_DIFFERENCE:
				opts = &schema.SquaredDifferenceOptionsT{}
			}
			return c.same(code, opts, a, b)
		}, op)
	}
	register(func(c *ctx) error {
		x, err := c.in(0)
		if err != nil {
			return err
		}
		return c.same(schema.BuiltinOperatorSOFTMAX, &schema.SoftmaxOptionsT{Beta: 1}, x)
	}, "Softmax")
	register(func(c *ctx) error {
		x, err := c.in(0)
		if err != nil {
			return err
		}
		return c.same(schema.BuiltinOperatorLOG_SOFTMAX, &schema.LogSoftmaxOptionsT{}, x)
	}, "LogSoftmax")
	register(func(c *ctx) error {
		x, err := c.in(0)
		if err != nil {
			return err
		}
		alpha, err := c.n.AttrFloat("alpha", 0.2)
		if err != nil {
			return err
		}
		return c.same(schema.BuiltinOperatorLEAKY_RELU, &schema.LeakyReluOptionsT{Alpha: alpha}, x)
	}, "LeakyRelu")
	register(func(c *ctx) error {
		x, err := c.in(0)
		if err != nil {
			return err
		}
		out := c.n.Outputs[0].DType
		return c.same(schema.BuiltinOperatorCAST, &schema.CastOptionsT{InDataType: schema.TensorType(x.DType), OutDataType: schema.TensorType(out)}, x)
	}, "Cast")
	register(selectOp, "Select", "SelectV2")
	register(func(c *ctx) error {
		return c.same(schema.BuiltinOperatorADD_N, &schema.AddNOptionsT{}, c.n.Inputs...)
	}, "AddN")
}

// selectOp: SELECT_V2 broadcasts like SelectV2; TF1 Select with a vector
// condition selects rows, which SELECT (v1) implements.
func selectOp(c *ctx) error {
	cond, err := c.in(0)
	if err != nil {
		return err
	}
	x, err := c.in(1)
	if err != nil {
		return err
	}
	y, err := c.in(2)
	if err != nil {
		return err
	}
	if c.n.Op == "Select" {
		return c.same(schema.BuiltinOperatorSELECT, nil, cond, x, y)
	}
	return c.same(schema.BuiltinOperatorSELECT_V2, &schema.SelectV2OptionsT{}, cond, x, y)
}
