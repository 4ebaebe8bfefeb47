package fusion_test

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/fusion"
)

// The default registry finds the rule for a Keras layer's api_implements
// name by its prefix; a name no rule claims is inlined and lowered as
// ordinary ops.
func ExampleRegistry_Lookup() {
	for _, name := range []string{"lstm_acb16a99-1b2c", "gru_5e6f", "my.cell"} {
		rule, ok := fusion.Default.Lookup(name)
		fmt.Printf("%s: %v %T\n", name, ok, rule)
	}
	// Output:
	// lstm_acb16a99-1b2c: true fusion.KerasLSTM
	// gru_5e6f: true fusion.KerasGRU
	// my.cell: false <nil>
}
